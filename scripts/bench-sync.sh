#!/usr/bin/env bash
# The sync benchmark of issue 3 (mirror/bench_sync_test.go): sync 200
# generated extensions (about 500 MB) from the fixture upstream with 50 ms
# added to every response, at concurrency 4 and 8, in process and as the
# airvsx binary; then 100 extensions (half the bytes) and 50 packages of
# about 10 MiB (the same bytes, 4x larger files) as the binary, whose peak
# RSS must stay flat. Prints wall time, the bound
# max(bytes/bandwidth, requests x latency / concurrency), their ratio and
# the peak RSS of each run.
#
#   bash scripts/bench-sync.sh            # every set
#   BENCH=BenchmarkSync200 bash scripts/bench-sync.sh
#   AIRVSX_BENCH_BIN=/tmp/airvsx-old bash scripts/bench-sync.sh   # another airvsx
#
# AIRVSX_BENCH_BIN runs an airvsx built elsewhere (an older commit, for an
# A/B comparison under the same load) instead of building this tree's.
# Besides wall time, each run reports airvsx's CPU time, which depends less
# on what else the machine is doing.
#
# Needs about 1.5 GB of memory and 1.2 GB of disk in $TMPDIR; everything is
# generated at run time and removed on exit. Linux only (peak RSS is read
# from /proc).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${BENCH:-^BenchmarkSync(200|100|LargeFiles)$}"

work="$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-sync.XXXXXX")"
trap 'rm -rf "$work"' EXIT

avail_kb="$(df -Pk "$work" | awk 'NR==2 {print $4}')"
if [ "$avail_kb" -lt $((1500 * 1024)) ]; then
  echo "bench-sync: only $((avail_kb / 1024)) MB free in $work; need about 1500 MB" >&2
  exit 1
fi

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), go $(go env GOVERSION)"

cd "$root"
bin="${AIRVSX_BENCH_BIN:-}"
if [ -z "$bin" ]; then
  bin="$work/airvsx"
  go build -trimpath -o "$bin" ./cmd/airvsx
fi
echo "airvsx: $bin"

# TMPDIR: the fixtures, registries and downloads all go under $work.
AIRVSX_BENCH_BIN="$bin" TMPDIR="$work" \
  go test -run '^$' -bench "$bench" -benchtime 1x -timeout 60m ./mirror/ | tee "$work/out.txt"

echo
echo "== summary (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
grep -o 'SUMMARY .*' "$work/out.txt" | sed 's/^SUMMARY //; s/; /\n    /g'
