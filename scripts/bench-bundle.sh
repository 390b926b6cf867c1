#!/usr/bin/env bash
# bench-bundle.sh: issue 25's figures for delta bundles. It generates a
# registry of BUNDLE_N entries (default 50,000; 512-byte packages, ten to
# an extension: verify/internal/benchreg) at run time and copies it as the
# far side (serial 1), then adds to it, each change signed as the next
# serial (benchreg gen -add: new extensions, each in a bin of its own or
# not as their IDs hash):
#
#   +1    one entry of BUNDLE_ONE_SIZE bytes (default 5 MiB)
#   +100  100 entries of BUNDLE_HUNDRED_SIZE bytes (default 1 MiB)
#   +1GB  BUNDLE_GB_ENTRIES entries (default 200) of 5 MiB: about 1 GB
#
# and writes each change's bundle (airvsx bundle --since the far side).
# Figures: each bundle's bytes against the changed blobs' total, and the
# share of metadata in it (goal for +100: under 1%); then the apply of the
# 1 GB bundle (airvsx copy BUNDLE FAR) against the yardstick, cp -r of the
# bundle onto the same file system and sync, RUNS times each (default 5),
# in turn (odd runs the apply first, even runs last), the far side put
# back between runs; the medians and their ratio
# (goal: at most 1.2). The far side is verified after the apply.
#
#   BUNDLE_N=5000 bash scripts/bench-bundle.sh
#
# Needs go and GNU time; about 45 KB of disk an entry plus 3 GB in
# $TMPDIR. Everything is removed on exit. Linux only. The script fails
# only when a run is broken, never for a missed goal.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BUNDLE_N:-50000}
ONE=${BUNDLE_ONE_SIZE:-5242880}
HUNDRED=${BUNDLE_HUNDRED_SIZE:-1048576}
GB_ENTRIES=${BUNDLE_GB_ENTRIES:-200}
RUNS=${RUNS:-5}
export COSIGN_PASSWORD=
command -v /usr/bin/time >/dev/null || { echo "bench-bundle: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g ? "PASS" : "MISSED") }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
figure() { echo "$1: $(verdict "$2" "$3")" | tee -a "$work/figures"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo "machine: $(nproc) CPUs, load average $(load), go $(go env GOVERSION)"
mkdir -p "$work/bin"
go build -o "$work/bin/airvsx" ./cmd/airvsx
go build -o "$work/bin/gen" ./verify/internal/benchreg/gen
airvsx=$work/bin/airvsx gen=$work/bin/gen reg=$work/reg far=$work/far key=$work/bench

echo "generating $N entries in $reg"
"$gen" -out "$reg" -key "$key" -entries "$N" -size 512 -versions 10 >/dev/null
cp -a "$reg" "$far"

# bundle NAME SINCE: writes the bundle of the registry's newest serial
# since SINCE into $work/NAME and prints its figures; the far side's
# state is read from the far registry itself.
next=$N
bundle() {
	local name=$1 entries=$2 size=$3
	"$gen" -out "$reg" -key "$key" -add "$entries" -first "$next" -size "$size" >/dev/null
	next=$((next + entries))
	/usr/bin/time -f '%e %M' -o "$work/$name.time" "$airvsx" bundle --registry "$reg" --since "$far" --out "$work/$name" --key "$key.pub" --no-state >"$work/$name.out"
	local wall rss
	read -r wall rss <"$work/$name.time"
	local m="$work/$name/airvsx-bundle.txt"
	local blobs meta total
	blobs=$(awk 'NR > 6 && $3 ~ /^blobs\// { s += $2 } END { print s + 0 }' "$m")
	meta=$(awk 'NR > 6 && $3 !~ /^blobs\// { s += $2 } END { print s + 0 }' "$m")
	total=$((blobs + meta))
	printf '%s: %d entries of %d bytes; bundle %d bytes in %d files: blobs %d bytes, metadata %d bytes (%.3f%%); written in %.2f s, peak RSS %d MB\n' \
		"$name" "$entries" "$size" "$total" "$(($(wc -l <"$m") - 6))" "$blobs" "$meta" "$(calc "$meta * 100 / $total")" "$wall" $((rss / 1024)) | tee -a "$work/figures"
	eval "${name}_meta=$meta ${name}_total=$total"
}

echo
echo "== bundles on $N entries (load $(load))"
bundle one 1 "$ONE"
"$airvsx" copy "$work/one" "$far" --key "$key.pub" --no-state >/dev/null
bundle hundred 100 "$HUNDRED"
"$airvsx" copy "$work/hundred" "$far" --key "$key.pub" --no-state >/dev/null
figure "$(printf '+100 entries: metadata %.3f%% of the bundle (goal < 1%%)' "$(calc "$hundred_meta * 100 / $hundred_total")")" "$(calc "$hundred_meta * 100 / $hundred_total")" 1
bundle gb "$GB_ENTRIES" 5242880

echo
echo "== apply the $(du -sh "$work/gb" | cut -f1) bundle, $RUNS times, against cp -r + sync (load $(load))"
# The far side is put back between runs: its metadata as it was, the
# repositories the bundle made removed.
cp -a "$far/metadata" "$work/far-metadata"
ls "$far/extensions/bench" >"$work/far-repos"
restore() {
	comm -13 "$work/far-repos" <(ls "$far/extensions/bench") | sed "s|^|$far/extensions/bench/|" | xargs -r rm -rf
	rm -rf "$far/metadata" && cp -a "$work/far-metadata" "$far/metadata"
	rm -rf "$far/cp-copy"
	sync
}
# Each measure after the far side is put back; odd runs apply first,
# even runs the yardsticks first, so that neither gains from the order.
verified=
apply_run() {
	restore
	/usr/bin/time -f '%e %M' -o "$work/apply.time" "$airvsx" copy "$work/gb" "$far" --key "$key.pub" --no-state >"$work/apply.out"
	read -r wall rss <"$work/apply.time"
	echo "$wall" >>"$work/apply.walls"
	if [ -z "$verified" ]; then
		if ! "$airvsx" verify --registry "$far" --key "$key.pub" --no-state >"$work/verify.out"; then
			echo "bench-bundle: the far side does not verify after the apply:" >&2
			tail -20 "$work/verify.out" >&2
			exit 1
		fi
		verified=1
	fi
}
cp_run() {
	restore
	/usr/bin/time -f '%e %M' -o "$work/cp.time" sh -c 'cp -r "$1" "$2" && sync' sh "$work/gb" "$far/cp-copy"
	read -r cwall _ <"$work/cp.time"
	echo "$cwall" >>"$work/cp.walls"
}
# A second yardstick, for the record: the copy and a check of every
# byte, which the apply makes and cp does not.
cps_run() {
	restore
	/usr/bin/time -f '%e %M' -o "$work/cps.time" sh -c 'cp -r "$1" "$2" && sync && cd "$2" && find . -type f -print0 | xargs -0 sha256sum >/dev/null' sh "$work/gb" "$far/cp-copy"
	read -r swall _ <"$work/cps.time"
	echo "$swall" >>"$work/cps.walls"
}
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then
		apply_run && cp_run && cps_run
	else
		cps_run && cp_run && apply_run
	fi
	printf 'run %d: apply %.2f s (peak RSS %d MB), cp -r + sync %.2f s, cp -r + sync + sha256sum %.2f s\n' "$i" "$wall" $((rss / 1024)) "$cwall" "$swall"
done
a=$(median <"$work/apply.walls") c=$(median <"$work/cp.walls") cs=$(median <"$work/cps.walls")
figure "$(printf 'apply of the 1 GB bundle: median %.2f s; cp -r + sync median %.2f s; ratio %.2f (goal <= 1.2)' "$a" "$c" "$(calc "$a / $c")")" "$(calc "$a / $c")" 1.2
printf 'for the record: cp -r + sync + sha256sum of every file, median %.2f s; apply / that %.2f\n' "$cs" "$(calc "$a / $cs")" | tee -a "$work/figures"

echo
echo "== summary: $N generated entries; $(nproc) CPUs; load now $(load)"
cat "$work/figures"
