#!/usr/bin/env bash
# bench-verify.sh: verify a ~2 GB registry (made at run time, never kept)
# with `airvsx verify --format json` and hash the same blob files with
# `openssl dgst -sha256`, alternately, RUNS times each; print both times,
# the ratio airvsx/openssl (goal: <= 0.7 on two cores) and airvsx's peak
# RSS (goal: < 150 MB).
#
#   ENTRIES=400 SIZE=5242880 RUNS=3 SIGNED=0 REPEAT=0 scripts/bench-verify.sh
#
# SIGNED=1 gives every entry an upstream Ed25519 signature, which verify
# also checks (a sha512 pass over every vsix: more CPU than the sha256);
# goal for that first run: ratio <= 1.5.
# REPEAT=1 times repeat runs instead: verify runs once untimed with a state
# directory, so the timed runs take the upstream-signature verdicts from
# its cache (every blob is still hashed); goal: ratio <= 0.7.
# Needs go, openssl and GNU time (/usr/bin/time; Debian package "time").
set -euo pipefail
cd "$(dirname "$0")/.."

ENTRIES=${ENTRIES:-400}
SIZE=${SIZE:-5242880}
RUNS=${RUNS:-3}
SIGNED=${SIGNED:-0}
REPEAT=${REPEAT:-0}
for tool in openssl /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-verify: $tool is missing (apt-get install -y openssl time)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/airvsx" ./cmd/airvsx
signed=()
[ "$SIGNED" = 1 ] && signed=(-signed)
go run ./verify/internal/benchreg/gen -out "$work/reg" -key "$work/bench" -entries "$ENTRIES" -size "$SIZE" "${signed[@]}"
reg=$work/reg

hash_openssl() {
	/usr/bin/time -f '%e %U %S' -o "$work/otime" sh -c \
		"find '$reg/extensions' -type f -path '*/blobs/*' -print0 | xargs -0 openssl dgst -sha256 >/dev/null"
}
state=(--no-state)
[ "$REPEAT" = 1 ] && state=(--state "$work/state")
verify_airvsx() {
	/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$work/airvsx" verify --registry "$reg" --key "$work/bench.pub" \
		"${state[@]}" --format json >"$work/report.json"
}
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

bytes=$(find "$reg/extensions" -type f -path '*/blobs/*' -printf '%s\n' | awk '{s+=$1} END {print s}')
mode="first run"
[ "$REPEAT" = 1 ] && mode="repeat run (signature cache warmed)"
echo "registry: $ENTRIES entries, $bytes bytes of blobs, signed=$SIGNED, $mode; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm the page cache for both: the benchmark measures hashing, not the disk.
hash_openssl
# REPEAT=1: one untimed run fills the state directory and its cache.
[ "$REPEAT" = 1 ] && verify_airvsx

a_total=0 o_total=0 rss_max=0 a_min=1e9 o_min=1e9 a_cpu=0 o_cpu=0
for i in $(seq "$RUNS"); do
	t0=$(now); verify_airvsx; t1=$(now)
	read -r _ rss au as <"$work/time"
	t2=$(now); hash_openssl; t3=$(now)
	read -r _ ou os <"$work/otime"
	a=$(calc "$t1 - $t0") o=$(calc "$t3 - $t2")
	a_total=$(calc "$a_total + $a") o_total=$(calc "$o_total + $o")
	a_min=$(calc "($a < $a_min ? $a : $a_min)") o_min=$(calc "($o < $o_min ? $o : $o_min)")
	a_cpu=$(calc "$a_cpu + $au + $as") o_cpu=$(calc "$o_cpu + $ou + $os")
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	printf 'run %d: airvsx %.2f s (cpu %.2f s, peak RSS %d MB), openssl %.2f s (cpu %.2f s)\n' "$i" "$a" "$(calc "$au + $as")" $((rss / 1024)) "$o" "$(calc "$ou + $os")"
done
grep -q '"ok": true' "$work/report.json" || { echo "bench-verify: the registry did not verify:" >&2; head -50 "$work/report.json" >&2; exit 1; }
grep -E '"signatures(Verified|Cached)"' "$work/report.json" | tr -d ' ,' | tr '\n' ' ' | sed 's/^/last run: /; s/$/\n/'
goal=0.70
[ "$SIGNED" = 1 ] && [ "$REPEAT" != 1 ] && goal=1.50
ratio=$(calc "$a_total / $o_total")
printf 'airvsx verify: %.2f s, openssl dgst -sha256: %.2f s (mean of %d); ratio %.2f (goal <= %s); best of %d: %.2f s vs %.2f s, ratio %.2f\n' \
	"$(calc "$a_total / $RUNS")" "$(calc "$o_total / $RUNS")" "$RUNS" "$ratio" "$goal" "$RUNS" "$a_min" "$o_min" "$(calc "$a_min / $o_min")"
# CPU time does not depend on what else the machine runs: on an idle
# machine with N CPUs airvsx's wall time is about its CPU time / N.
printf 'cpu: airvsx %.2f s, openssl %.2f s per run; idle-machine estimate on %d CPUs: ratio %.2f\n' \
	"$(calc "$a_cpu / $RUNS")" "$(calc "$o_cpu / $RUNS")" "$(nproc)" "$(calc "($o_cpu > 0 ? ($a_cpu / $(nproc)) / $o_cpu : 0)")"
printf 'airvsx peak RSS %d MB (goal < 150); load after: %s\n' $((rss_max / 1024)) "$(cut -d' ' -f1-3 /proc/loadavg)"
