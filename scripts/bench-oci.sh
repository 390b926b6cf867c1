#!/usr/bin/env bash
# bench-oci.sh: copy a ~1 GB registry (made at run time, never kept) from
# a directory into an OCI distribution registry on loopback (started here:
# a configuration written here, storage in a temporary directory) with
# `airvsx copy DIR docker://...` (the source verified on the way, every
# blob HEADed, then uploaded and committed only once its bytes check), and
# push the same artifacts (each entry's manifest, config and layers) with
# `oras cp --from-oci-layout` into another prefix of the same registry, one
# oras process per entry, at the concurrency airvsx copies with (one blob
# per CPU, at least 4); alternately, RUNS times each, each run into fresh prefixes.
# Print both times and the ratio airvsx/oras (goal: <= 1). Then a
# no-change re-copy of a registry of REENTRIES entries into a registry
# prefix that already holds it: its time (goal: < 2 s) and how many blobs
# moved (its --json report; goal: 0).
#
#   ENTRIES=200 SIZE=5242880 RUNS=2 REENTRIES=400 scripts/bench-oci.sh
#
# Needs go, curl, oras (CI: .ci/run installs it) and the distribution
# registry (go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2).
set -euo pipefail
cd "$(dirname "$0")/.."

ENTRIES=${ENTRIES:-200}
SIZE=${SIZE:-5242880}
RUNS=${RUNS:-2}
REENTRIES=${REENTRIES:-400}
RESIZE=${RESIZE:-65536}
export PATH="$PATH:$(go env GOPATH)/bin"
for tool in curl oras registry; do
	command -v "$tool" >/dev/null || { echo "bench-oci: $tool is missing (see the comment at the top)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-oci.XXXXXX")
regpid=""
cleanup() {
	if [ -n "$regpid" ]; then kill "$regpid" 2>/dev/null || true; wait "$regpid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/airvsx" ./cmd/airvsx

# The registry, on a free loopback port.
port=""
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "bench-oci: no free port" >&2; exit 1; }
host=127.0.0.1:$port
# The blob descriptor cache is the one the registry's own sample
# configuration (and its container image) sets.
cat >"$work/registry.yml" <<CONFIG
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  cache:
    blobdescriptor: inmemory
  filesystem:
    rootdirectory: $work/storage
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: $host
CONFIG
OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
regpid=$!
for _ in $(seq 100); do
	curl -fs "http://$host/v2/" >/dev/null && break
	sleep 0.1
done
curl -fs "http://$host/v2/" >/dev/null || { echo "bench-oci: the registry did not start:" >&2; cat "$work/registry.log" >&2; exit 1; }

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
conc=$(( $(nproc) > 4 ? $(nproc) : 4 )) # airvsx copy's workers: one per CPU, at least 4 (transfer.Options.Workers)

go run ./verify/internal/benchreg/gen -out "$work/reg" -key "$work/bench" -entries "$ENTRIES" -size "$SIZE" >/dev/null
reg=$work/reg
bytes=$(du -sb "$reg/extensions" | cut -f1)
echo "registry: $ENTRIES entries, $((bytes / 1048576)) MiB of extensions; $(nproc) CPUs; oras $(oras version | sed -n 's/^Version: *//p'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$reg"/extensions/*/*/blobs/sha256/* >/dev/null # warm the page cache

repos=()
for d in "$reg"/extensions/*/*/; do
	d=${d%/}
	repos+=("${d#"$reg/extensions/"}")
done

a_total=0 o_total=0
for i in $(seq "$RUNS"); do
	t0=$(now)
	"$work/airvsx" copy "$reg" "docker://$host/airvsx-$i" --insecure --key "$work/bench.pub" --no-state --json >"$work/report.json"
	t1=$(now)
	grep -q "\"blobs\": $((ENTRIES * 5))," "$work/report.json" || { echo "bench-oci: unexpected report:" >&2; head -40 "$work/report.json" >&2; exit 1; }
	t2=$(now)
	for r in "${repos[@]}"; do
		tag=$(sed -n 's/.*"org.opencontainers.image.ref.name":"\([^"]*\)".*/\1/p' "$reg/extensions/$r/index.json")
		oras cp --from-oci-layout "$reg/extensions/$r:$tag" --to-plain-http "$host/oras-$i/$r:$tag" --concurrency "$conc" >/dev/null
	done
	t3=$(now)
	a=$(calc "$t1 - $t0") o=$(calc "$t3 - $t2")
	a_total=$(calc "$a_total + $a") o_total=$(calc "$o_total + $o")
	printf 'run %d: airvsx copy %.2f s, oras cp %.2f s (%d processes); load %s\n' "$i" "$a" "$o" "${#repos[@]}" "$(cut -d' ' -f1 /proc/loadavg)"
done
# What starting an oras process costs, part of oras's time above.
t0=$(now)
for _ in $(seq 20); do oras version >/dev/null; done
t1=$(now)
printf 'airvsx copy: %.2f s, oras cp: %.2f s (mean of %d; %d MiB); ratio airvsx/oras %.2f (goal <= 1); starting oras costs %.0f ms a process\n' \
	"$(calc "$a_total / $RUNS")" "$(calc "$o_total / $RUNS")" "$RUNS" $((bytes / 1048576)) "$(calc "$a_total / $o_total")" "$(calc "($t1 - $t0) * 1000 / 20")"

# A no-change re-copy.
go run ./verify/internal/benchreg/gen -out "$work/re" -key "$work/re" -entries "$REENTRIES" -size "$RESIZE" >/dev/null
"$work/airvsx" copy "$work/re" "docker://$host/again" --insecure --key "$work/re.pub" --no-state >/dev/null
t0=$(now)
"$work/airvsx" copy "$work/re" "docker://$host/again" --insecure --key "$work/re.pub" --no-state --json >"$work/again.json"
t1=$(now)
moved=$(sed -n 's/^  "blobs": \([0-9]*\),$/\1/p' "$work/again.json")
present=$(sed -n 's/^  "present": \([0-9]*\),$/\1/p' "$work/again.json")
printf 're-copy of %d unchanged entries: %.2f s (goal < 2 s), %s blobs moved (goal 0), %s present; load after: %s\n' \
	"$REENTRIES" "$(calc "$t1 - $t0")" "$moved" "$present" "$(cut -d' ' -f1-3 /proc/loadavg)"
[ "$moved" = 0 ] || { echo "bench-oci: the re-copy moved blobs" >&2; exit 1; }
