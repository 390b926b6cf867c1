#!/usr/bin/env bash
# bench-git.sh: write a registry (made at run time, never kept) into a
# git repository as a sync writes into git:PATH (every blob put through
# the Store, hashed and checked, each entry tagged, the metadata written,
# one signed commit: testkit/gitbench), and commit
# the same tree with stock git (git init && git add -A && git commit),
# alternately, RUNS times each; print both wall times, the ratio
# airvsx/git (goal: <= 1.5) and both peak RSS. Then again with twice the
# entries: airvsx's peak RSS must stay flat (goal: < 200 MB).
#
#   ENTRIES=100 SIZE=5242880 RUNS=2 scripts/bench-git.sh
#
# Needs go, git and GNU time (/usr/bin/time; Debian package "time").
set -euo pipefail
cd "$(dirname "$0")/.."

ENTRIES=${ENTRIES:-100}
SIZE=${SIZE:-5242880}
RUNS=${RUNS:-2}
for tool in git /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-git: $tool is missing (apt-get install -y git time)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-git.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/gitbench" ./testkit/gitbench
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home"
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(git --version)"

bench() { # entries
	local n=$1 reg="$work/reg-$1"
	go run ./verify/internal/benchreg/gen -out "$reg" -key "$work/bench-$n" -entries "$n" -size "$SIZE" >/dev/null
	local bytes
	bytes=$(du -sb "$reg" | cut -f1)
	echo "registry: $n entries, $((bytes / 1048576)) MiB"
	local a_best="" g_best="" a_rss=0 g_rss=0
	for run in $(seq "$RUNS"); do
		rm -rf "$work/a.git" "$work/g"
		sync; sleep 1
		/usr/bin/time -f '%e %M' -o "$work/atime" "$work/gitbench" -from "$reg" -to "$work/a.git"
		read -r a_wall a_kb <"$work/atime"
		# Stock git over the same tree (a copy, so its .git does not land
		# in the registry; the copy is not timed).
		cp -a "$reg" "$work/g"
		sync; sleep 1
		/usr/bin/time -f '%e %M' -o "$work/gtime" sh -c \
			"cd '$work/g' && git init -q && git add -A && git commit -q -m bench"
		read -r g_wall g_kb <"$work/gtime"
		echo "  run $run: airvsx ${a_wall}s (peak RSS $((a_kb / 1024)) MB), git add -A && git commit ${g_wall}s (peak RSS $((g_kb / 1024)) MB)"
		if [ -z "$a_best" ] || awk "BEGIN{exit !($a_wall < $a_best)}"; then a_best=$a_wall; fi
		if [ -z "$g_best" ] || awk "BEGIN{exit !($g_wall < $g_best)}"; then g_best=$g_wall; fi
		[ "$a_kb" -gt "$a_rss" ] && a_rss=$a_kb
		[ "$g_kb" -gt "$g_rss" ] && g_rss=$g_kb
		rm -rf "$work/g"
	done
	# The two repositories hold the same tree.
	git -C "$work/a.git" fsck --no-dangling >/dev/null
	echo "SUMMARY $n entries: airvsx ${a_best}s, git ${g_best}s, ratio $(awk "BEGIN{printf \"%.2f\", $a_best / $g_best}") (goal <= 1.5); peak RSS airvsx $((a_rss / 1024)) MB (goal < 200), git $((g_rss / 1024)) MB"
	rm -rf "$reg" "$work/a.git"
}

bench "$ENTRIES"
bench $((ENTRIES * 2))
