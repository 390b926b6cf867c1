#!/usr/bin/env bash
# bench-serve.sh: issue 26's figures for airvsx serve. It generates a
# registry of SERVE_N entries (default 50,000: 5,000 extensions of ten
# 512-byte versions, verify/internal/benchreg) and one 5 MiB package at
# run time, starts airvsx serve on loopback (--no-site: the static
# catalog's render is site's own benchmark), and drives it with hey (from
# the Go module proxy) at SERVE_C concurrent clients (default 50):
#
#   extension JSON  GET /api/bench/ext-NNNN (a different extension per run)
#   gallery query   POST /vscode/gallery/extensionquery as VS Code sends
#                   it: a search (a page of 50; also with the answer
#                   left gzipped, as the extension JSON) and one ID
#   5 MiB vsix      GET …/vspackage of the 5 MiB package
#
# Figures: requests/s and p99 of each, serve's start (verify) time and
# its peak RSS (VmHWM). Goals on a 2-core machine: > 5,000 JSON
# requests/s, p99 < 20 ms, RSS < 150 MB.
#
#   SERVE_N=5000 bash scripts/bench-serve.sh
#
# Needs go; about 10 KB of disk an entry in $TMPDIR. Everything is
# removed on exit. Linux only. It fails only when a run is broken, never
# for a missed goal.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${SERVE_N:-50000}
C=${SERVE_C:-50}
REQS=${SERVE_REQUESTS:-50000}
DL=${SERVE_DOWNLOADS:-1000}
export COSIGN_PASSWORD=

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-serve.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "machine: $(nproc) CPUs, load average $(load), go $(go env GOVERSION)"
mkdir -p "$work/bin"
go build -o "$work/bin/airvsx" ./cmd/airvsx
go build -o "$work/bin/gen" ./verify/internal/benchreg/gen
GOBIN="$work/bin" go install github.com/rakyll/hey@v0.1.4
airvsx=$work/bin/airvsx gen=$work/bin/gen hey=$work/bin/hey reg=$work/reg key=$work/bench

echo "generating $N entries in $reg"
"$gen" -out "$reg" -key "$key" -entries "$N" -size 512 -versions 10 >/dev/null
"$gen" -out "$reg" -key "$key" -add 1 -first "$N" -size 5242880 >/dev/null
big=$(printf 'ext-%04d' "$N")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
start=$(date +%s.%N)
"$airvsx" serve --registry "$reg" --key "$key.pub" --no-state --addr "127.0.0.1:$port" --no-site --access-log off --poll 0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
until curl -fsS "$base/healthz" >/dev/null 2>&1; do
	kill -0 "$pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
	sleep 0.05
done
echo "serve verified $((N + 1)) entries and listened in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s; RSS $(awk '/VmRSS/ { print $2 / 1024 " MB" }' /proc/$pid/status)"

# run NAME HEY-ARGS...: hey's figures, one line.
run() {
	local name=$1
	shift
	"$hey" -c "$C" "$@" >"$work/hey.out"
	local rps p99 codes
	rps=$(awk '/Requests\/sec:/ { printf "%.0f", $2 }' "$work/hey.out")
	p99=$(awk '/ 99% in / { printf "%.2f", $3 * 1000 }' "$work/hey.out")
	codes=$(awk '/Status code distribution:/ { on = 1; next } on && /\[/ { printf "%s%s", sep, $1 $2; sep = " " } on && /^$/ { on = 0 }' "$work/hey.out")
	echo "$name: $rps requests/s, p99 $p99 ms, $C clients (status: $codes)"
}

run "extension JSON" -n "$REQS" "$base/api/bench/ext-0042"
run "extension JSON, gzip" -n "$REQS" -H "Accept-Encoding: gzip" "$base/api/bench/ext-0043"
run "version JSON" -n "$REQS" "$base/api/bench/ext-0044/1.0.3"
cat >"$work/query.json" <<'JSON'
{"filters":[{"criteria":[{"filterType":8,"value":"Microsoft.VisualStudio.Code"},{"filterType":10,"value":"ext-01"},{"filterType":12,"value":"4096"}],"pageNumber":1,"pageSize":50,"sortBy":0,"sortOrder":0}],"assetTypes":[],"flags":950}
JSON
run "gallery query (search, a page of 50)" -n "$((REQS / 5))" -m POST -T "application/json" -D "$work/query.json" "$base/vscode/gallery/extensionquery"
# The same, as VS Code asks for it (gzip), with the answer left
# compressed: hey on these 2 cores then does not spend them gunzipping
# 160 KB an answer, which an editor does on its own machine.
run "gallery query (search, a page of 50), gzip" -n "$((REQS / 5))" -m POST -T "application/json" -H "Accept-Encoding: gzip" -D "$work/query.json" "$base/vscode/gallery/extensionquery"
cat >"$work/one.json" <<'JSON'
{"filters":[{"criteria":[{"filterType":7,"value":"bench.ext-0042"},{"filterType":8,"value":"Microsoft.VisualStudio.Code"},{"filterType":12,"value":"4096"}],"pageNumber":1,"pageSize":1,"sortBy":0,"sortOrder":0}],"assetTypes":[],"flags":950}
JSON
run "gallery query (one ID)" -n "$REQS" -m POST -T "application/json" -D "$work/one.json" "$base/vscode/gallery/extensionquery"
run "Open VSX search" -n "$((REQS / 10))" "$base/api/-/search?query=ext-01&size=50"
run "5 MiB vsix" -n "$DL" "$base/vscode/gallery/publishers/bench/vsextensions/$big/1.0.0/vspackage"
echo "serve peak RSS: $(awk '/VmHWM/ { printf "%.0f MB", $2 / 1024 }' /proc/$pid/status)"
echo "load average after: $(load)"
