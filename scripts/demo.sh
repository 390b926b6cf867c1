#!/usr/bin/env bash
# The main job on the bundled, offline samples. For now: inspect each sample
# .vsix (later: sync from the built-in demo upstream, verify, render the site).
set -euo pipefail
bin=${1:-bin/airvsx}
cd "$(dirname "$0")/.."

"$bin" version
for f in testdata/vsix/*.vsix; do
	echo
	echo "== airvsx inspect $f"
	"$bin" inspect "$f"
done
