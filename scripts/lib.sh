# lib.sh: the set-up the benchmark scripts (scripts/bench-*.sh) share.
# Source it from the repository's root, after set -euo pipefail:
#
#   . scripts/lib.sh

# need NAME HINT TOOL...: exits 2, saying how to get it (HINT), at the
# first TOOL that is not on PATH; NAME is the script's, for the message.
need() {
	local name=$1 hint=$2 tool
	shift 2
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$name: $tool is missing ($hint)" >&2; exit 2; }
	done
}

# workdir NAME: sets work to a new temporary directory for the benchmark
# NAME, removed on exit (a script with more to clean up sets its own EXIT
# trap afterwards, removing $work too).
workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/airvsx-bench-$1.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}

# now prints the time, in seconds since the epoch with nanoseconds.
now() { date +%s.%N; }

# calc EXPR prints the awk expression EXPR with six decimals.
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
