#!/usr/bin/env bash
# bench-scale.sh: issue 24's figures on a large registry. It generates
# SCALE_N entries (default 200,000) of SCALE_SIZE-byte packages (default
# 512), SCALE_VERSIONS entries (versions) to an extension (default 10),
# at run time (verify/internal/benchreg: real manifests, tags and blobs,
# a signed sharded catalog; a few minutes at 200,000 on 2 CPUs), then
# measures with /usr/bin/time (wall, peak RSS). Open VSX has over 12,000
# extensions and well over 100,000 packages, about ten an extension; a
# mirror of 200,000 entries at ten an extension has 20,000 repositories,
# more than Open VSX has extensions. SCALE_VERSIONS=1 gives every entry
# its own repository, the shape that costs a reader most an entry (each
# repository's layout files and directories are read once for one entry).
#
#   sync     a real `airvsx sync` that adds one entry (airvsx-demo.night-theme
#            from the fixture upstream, cmd/openvsx-fixture) with the
#            registry's own key; the policy selects only that extension
#            and the others stay (no --prune). Figure: bytes of the files
#            under metadata/ that are new or changed     (goal < 1 MB)
#   verify   `airvsx verify --no-read-data` of the registry after that sync:
#            ms per entry                                (goal < 0.1 ms)
#            peak RSS                                    (goal < 200 MB)
#   install  `airvsx install ID` of one extension into a fresh extensions
#            directory: wall                             (goal < 0.5 s)
#            peak RSS                                    (goal < 100 MB)
#   ls       `airvsx ls ID`: wall                        (goal < 0.2 s)
#
# install and ls run RUNS times (default 3; the best wall time, the
# largest RSS). Each figure is one line with its goal and PASS or MISSED.
# The script fails (non-zero) only when a run is broken (a command fails,
# the registry does not verify), never for a missed goal.
#
#   SCALE_N=50000 bash scripts/bench-scale.sh
#
# Needs go and GNU time (/usr/bin/time; Debian package "time"), and in
# $TMPDIR about 45 KB of disk and 10 inodes an entry (9 GB and 2 million
# at 200,000: every small file takes a block). Everything is removed on
# exit. Linux only.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${SCALE_N:-200000}
SIZE=${SCALE_SIZE:-512}
VERSIONS=${SCALE_VERSIONS:-10}
RUNS=${RUNS:-3}
# benchreg's key is not encrypted.
export COSIGN_PASSWORD=
command -v /usr/bin/time >/dev/null || { echo "bench-scale: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-scale.XXXXXX")
fixture_pid=
cleanup() {
	if [ -n "$fixture_pid" ]; then kill "$fixture_pid" 2>/dev/null || true; wait "$fixture_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

need_kb=$((N * 45 + 1024 * 1024))
avail_kb=$(df -Pk "$work" | awk 'NR==2 {print $4}')
avail_inodes=$(df -Pi "$work" | awk 'NR==2 {print $4}')
if [ "$avail_kb" -lt "$need_kb" ] || { [ "$avail_inodes" != "-" ] && [ "$avail_inodes" -lt $((N * 10 + 10000)) ]; }; then
	echo "bench-scale: $((avail_kb / 1024)) MB and $avail_inodes inodes free in $work; $N entries need about $((need_kb / 1024)) MB and $((N * 10)) inodes" >&2
	exit 1
fi

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
# verdict VALUE GOAL: PASS when VALUE < GOAL, MISSED otherwise.
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { print (v < g ? "PASS" : "MISSED") }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# figure TEXT VALUE GOAL: one line of the report, also kept for the summary.
figure() { echo "$1: $(verdict "$2" "$3")" | tee -a "$work/figures"; }
# timed NAME CMD...: runs CMD under /usr/bin/time, its output in
# $work/NAME.out and .err; sets wall (s) and rss (KB). A failing command
# is a broken run.
timed() {
	local name=$1
	shift
	if ! /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
		echo "bench-scale: $name failed: $*" >&2
		tail -n 30 "$work/$name.out" "$work/$name.err" >&2
		exit 1
	fi
	read -r wall rss <"$work/$name.time"
}

echo "machine: $(nproc) CPUs, load average $(load), go $(go env GOVERSION)"
mkdir -p "$work/bin"
go build -o "$work/bin/airvsx" ./cmd/airvsx
go build -o "$work/bin/openvsx-fixture" ./cmd/openvsx-fixture
go build -o "$work/bin/gen" ./verify/internal/benchreg/gen
airvsx=$work/bin/airvsx
reg=$work/reg

echo "generating $N entries of $SIZE bytes, $VERSIONS to an extension, in $reg"
timed gen "$work/bin/gen" -out "$reg" -key "$work/bench" -entries "$N" -size "$SIZE" -versions "$VERSIONS"
printf 'generated %d entries of %d bytes in %d repositories: %.1f s, peak RSS %d MB, %s on disk\n' "$N" "$SIZE" $(((N + VERSIONS - 1) / VERSIONS)) "$wall" $((rss / 1024)) "$(du -sh "$reg" | cut -f1)"

# The fixture upstream on loopback (as scripts/demo.sh starts it).
"$work/bin/openvsx-fixture" -listen 127.0.0.1:0 -fixtures testdata/vsix >"$work/fixture.url" 2>"$work/fixture.log" &
fixture_pid=$!
for _ in $(seq 100); do
	[ -s "$work/fixture.url" ] && break
	sleep 0.1
done
upstream=$(head -n1 "$work/fixture.url")
[ -n "$upstream" ] || { echo "bench-scale: the fixture upstream did not start:" >&2; cat "$work/fixture.log" >&2; exit 1; }
cat >"$work/policy.yaml" <<'EOF'
version: 1
extensions:
  - id: airvsx-demo.night-theme
requireUpstreamSignature: false
EOF

# metadata_sums: "sha256  path" of every file under metadata/, sorted.
metadata_sums() { (cd "$reg" && find metadata -type f -print0 | xargs -0 sha256sum) | LC_ALL=C sort; }
metadata_sums >"$work/meta.before"
echo
echo "== sync: one new entry into $N (load $(load))"
timed sync "$airvsx" sync --upstream "$upstream" --rate 50 --policy "$work/policy.yaml" \
	--registry "$reg" --key "$work/bench.key" --progress-every 0 --report "$work/sync.json"
sync_wall=$wall sync_rss=$rss
grep -q '"airvsx-demo.night-theme@2.1.0' "$work/sync.json" || { echo "bench-scale: the sync stored no airvsx-demo.night-theme 2.1.0:" >&2; head -c 3000 "$work/sync.json" >&2; exit 1; }
metadata_sums >"$work/meta.after"
# Files new or changed: lines (sum and path) only in the after list.
LC_ALL=C comm -13 "$work/meta.before" "$work/meta.after" | awk '{ print $2 }' >"$work/meta.written"
written_files=$(wc -l <"$work/meta.written")
written=$( (cd "$reg" && xargs -r stat -c %s <"$work/meta.written") | awk '{ s += $1 } END { print s + 0 }')
all_meta=$(du -sb "$reg/metadata" | cut -f1)
printf 'sync: %.2f s, peak RSS %d MB; metadata/ now %.1f MB in %d files\n' "$sync_wall" $((sync_rss / 1024)) "$(calc "$all_meta / 1048576")" "$(wc -l <"$work/meta.after")"
figure "$(printf 'sync +1 entry: %d bytes of metadata written in %d files (goal < 1 MB)' "$written" "$written_files")" "$written" 1048576
entries=$((N + 1))

echo
echo "== verify --no-read-data: $entries entries (load $(load))"
timed verify "$airvsx" verify --registry "$reg" --key "$work/bench.pub" --no-read-data --no-state --format json -o "$work/verify.json"
grep -q "\"entries\": $entries," "$work/verify.json" || { echo "bench-scale: verify did not see $entries entries:" >&2; head -40 "$work/verify.json" >&2; exit 1; }
ms=$(calc "$wall * 1000 / $entries")
printf 'verify: %.2f s for %d entries\n' "$wall" "$entries"
figure "$(printf 'verify --no-read-data: %.4f ms an entry (goal < 0.1 ms)' "$ms")" "$ms" 0.1
figure "$(printf 'verify --no-read-data: peak RSS %d MB (goal < 200 MB)' $((rss / 1024)))" "$rss" $((200 * 1024))

# One extension from the middle of the registry; the state directory is
# made by an untimed install of another one first (its seal key).
id=bench.ext-$(printf '%04d' $((N / 2 / VERSIONS)))
"$airvsx" install bench.ext-0000 --registry "$reg" --key "$work/bench.pub" --state "$work/state" --extensions "$work/exts-warm" >/dev/null
echo
echo "== install $id into a fresh extensions directory, best of $RUNS (load $(load))"
best=1e9 rss_max=0
for i in $(seq "$RUNS"); do
	timed install "$airvsx" install "$id" --registry "$reg" --key "$work/bench.pub" --state "$work/state" --extensions "$work/exts-$i"
	printf 'run %d: %.2f s, peak RSS %d MB\n' "$i" "$wall" $((rss / 1024))
	best=$(calc "($wall < $best ? $wall : $best)")
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
done
[ -s "$work/exts-1/installed.json" ] || { echo "bench-scale: install wrote no installed.json" >&2; exit 1; }
figure "$(printf 'install one extension: %.2f s (goal < 0.5 s)' "$best")" "$best" 0.5
figure "$(printf 'install one extension: peak RSS %d MB (goal < 100 MB)' $((rss_max / 1024)))" "$rss_max" $((100 * 1024))

echo
echo "== ls $id, best of $RUNS (load $(load))"
best=1e9 rss_max=0
for i in $(seq "$RUNS"); do
	timed ls "$airvsx" ls "$id" --registry "$reg" --key "$work/bench.pub" --no-state
	printf 'run %d: %.2f s, peak RSS %d MB\n' "$i" "$wall" $((rss / 1024))
	best=$(calc "($wall < $best ? $wall : $best)")
done
grep -q "$id" "$work/ls.out" || { echo "bench-scale: ls did not list $id:" >&2; cat "$work/ls.out" >&2; exit 1; }
figure "$(printf 'ls ID: %.2f s (goal < 0.2 s)' "$best")" "$best" 0.2

echo
echo "== summary: $N generated entries ($VERSIONS to an extension) + 1 synced; $(nproc) CPUs; load now $(load)"
cat "$work/figures"
