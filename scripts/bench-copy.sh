#!/usr/bin/env bash
# bench-copy.sh: copy a ~2 GB registry (made at run time, never kept) from
# one directory to another with `airvsx copy` (the source verified on the
# way: trust chain, catalog, manifests, every blob hashed while copied;
# every blob durable before the metadata names it) and with `cp -r` of the
# same tree, alternately, RUNS times each; print both times and the ratio
# airvsx/cp (goal: <= 1.2), airvsx's peak RSS, and `cp -r` followed by
# `sync` (the same durability as airvsx) for reference.
#
#   ENTRIES=400 SIZE=5242880 RUNS=3 scripts/bench-copy.sh
#
# Every timed command starts after a `sync`, so that neither pays for the
# other's writeback. Needs go and GNU time (/usr/bin/time; Debian package
# "time").
set -euo pipefail
cd "$(dirname "$0")/.."

ENTRIES=${ENTRIES:-400}
SIZE=${SIZE:-5242880}
RUNS=${RUNS:-3}
command -v /usr/bin/time >/dev/null || { echo "bench-copy: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-copy.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/airvsx" ./cmd/airvsx
go run ./verify/internal/benchreg/gen -out "$work/reg" -key "$work/bench" -entries "$ENTRIES" -size "$SIZE"
reg=$work/reg
out=$work/out

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
fresh() { rm -rf "$out"; sync; }

bytes=$(du -sb "$reg" | cut -f1)
files=$(find "$reg" -type f | wc -l)
echo "registry: $ENTRIES entries, $files files, $bytes bytes; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm the page cache: the benchmark measures the copy, not the source disk.
cat "$reg"/extensions/*/*/blobs/sha256/* >/dev/null

# One untimed round of each first: the first 2 GB written into memory
# this machine has not touched for a while cost more (on a VM, the host
# backs the pages on first touch), whichever tool writes them.
fresh
"$work/airvsx" copy "$reg" "$out" --key "$work/bench.pub" --no-state --json >/dev/null
fresh
cp -r "$reg" "$out"

a_total=0 c_total=0 s_total=0 rss_max=0 a_cpu=0 c_cpu=0
for i in $(seq "$RUNS"); do
	fresh
	t0=$(now)
	/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$work/airvsx" copy "$reg" "$out" --key "$work/bench.pub" --no-state --json >"$work/report.json"
	t1=$(now)
	read -r _ rss au as <"$work/time"
	grep -q "\"blobs\": $((ENTRIES * 5))," "$work/report.json" || { echo "bench-copy: unexpected report:" >&2; head -40 "$work/report.json" >&2; exit 1; }
	fresh
	t2=$(now); /usr/bin/time -f '%U %S' -o "$work/ctime" cp -r "$reg" "$out"; t3=$(now)
	read -r cu cs <"$work/ctime"
	fresh
	t4=$(now); cp -r "$reg" "$out"; sync; t5=$(now)
	a=$(calc "$t1 - $t0") c=$(calc "$t3 - $t2") s=$(calc "$t5 - $t4")
	a_total=$(calc "$a_total + $a") c_total=$(calc "$c_total + $c") s_total=$(calc "$s_total + $s")
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	a_cpu=$(calc "$a_cpu + $au + $as") c_cpu=$(calc "$c_cpu + $cu + $cs")
	printf 'run %d: airvsx copy %.2f s (cpu %.2f s, peak RSS %d MB), cp -r %.2f s (cpu %.2f s), cp -r + sync %.2f s; load %s\n' \
		"$i" "$a" "$(calc "$au + $as")" $((rss / 1024)) "$c" "$(calc "$cu + $cs")" "$s" "$(cut -d' ' -f1 /proc/loadavg)"
done
fresh
printf 'airvsx copy: %.2f s, cp -r: %.2f s, cp -r + sync: %.2f s (mean of %d); ratio to cp -r %.2f (goal <= 1.2), to cp -r + sync %.2f\n' \
	"$(calc "$a_total / $RUNS")" "$(calc "$c_total / $RUNS")" "$(calc "$s_total / $RUNS")" "$RUNS" \
	"$(calc "$a_total / $c_total")" "$(calc "$a_total / $s_total")"
# CPU time does not depend on what else the machine runs; the wall times
# above do (the writeback after a sync too).
printf 'cpu: airvsx copy %.2f s, cp -r %.2f s per run\n' "$(calc "$a_cpu / $RUNS")" "$(calc "$c_cpu / $RUNS")"
# What a verified, durable copy cannot go below here: the bytes must be
# hashed (sha256sum of every blob, on every CPU at once) and be on disk
# before the metadata names them (cp -r + sync).
t0=$(now)
find "$reg/extensions" -type f -path '*/blobs/sha256/*' -print0 | xargs -0 -P "$(nproc)" -n 64 sha256sum >/dev/null
h=$(calc "$(now) - $t0")
printf 'sha256sum of every blob on %d CPUs: %.2f s; airvsx copy / (cp -r + sync) %.2f\n' "$(nproc)" "$h" "$(calc "$a_total / $s_total")"
printf 'airvsx peak RSS %d MB; load after: %s\n' $((rss_max / 1024)) "$(cut -d' ' -f1-3 /proc/loadavg)"
