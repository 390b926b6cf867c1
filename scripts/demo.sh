#!/usr/bin/env bash
# The main job, end to end, on the built-in offline demo upstream:
#   1. start the fixture Open VSX (cmd/openvsx-fixture) on loopback;
#   2. make a signing key (or reuse ./demo-key.key);
#   3. sync policies/examples/demo.yaml from it into ./registry, with the
#      fixture's extension control list (kill list: testdata/control);
#   4. list the signed catalog;
#   5. verify every byte of it offline against the public key;
#   6. render the static HTML catalog (opens from file://);
#   7. install one extension (and its dependency) from the registry and
#      run its command in the extension host;
#   8. inspect one package.
# Nothing leaves the machine: the upstream is the fixture on 127.0.0.1.
set -euo pipefail
bin=${1:-bin/airvsx}
fixture=${2:-bin/openvsx-fixture}
cd "$(dirname "$0")/.."
export COSIGN_PASSWORD=${COSIGN_PASSWORD-}

"$bin" version

echo "== starting the offline demo upstream"
out=$(mktemp)
"$fixture" -listen 127.0.0.1:0 -fixtures testdata/vsix -control testdata/control/extensions.json >"$out" 2>"$out.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$out" "$out.log"' EXIT
for _ in $(seq 100); do
	[ -s "$out" ] && break
	sleep 0.1
done
upstream=$(head -n1 "$out")
if [ -z "$upstream" ]; then
	echo "the demo upstream did not start:" >&2
	cat "$out.log" >&2
	exit 1
fi
echo "upstream: $upstream"

echo
echo "== airvsx keygen"
if [ -f demo-key.key ]; then
	echo "reusing demo-key.key"
else
	"$bin" keygen --out demo-key
fi

echo
echo "== airvsx sync --policy policies/examples/demo.yaml --registry registry"
# --rate: the upstream is a local fixture; the default (2 requests/s) is
# for open-vsx.org's free tier. --control-url: the kill list, carried
# signed (the real one: Open VSX's extension-control/extensions.json).
"$bin" sync --upstream "$upstream" --rate 50 --policy policies/examples/demo.yaml --registry registry --key demo-key.key \
	--control-url "$upstream/extension-control/extensions.json"

echo
echo "== airvsx ls --registry registry"
"$bin" ls --registry registry

echo
echo "== airvsx verify --registry registry --key demo-key.pub --policy policies/examples/demo.yaml"
# The demo keeps its verifier state beside the registry; a real site keeps
# it in the user's state directory (the default) or, in CI, in the repo.
"$bin" verify --registry registry --key demo-key.pub --policy policies/examples/demo.yaml --state registry-state

echo
echo "== airvsx site --registry registry --out catalog-site --key demo-key.pub"
"$bin" site --registry registry --out catalog-site --key demo-key.pub
echo "open $(pwd)/catalog-site/index.html in any browser (file:// works; no network needed)"

echo
echo "== airvsx install airvsx-demo.uses-git --registry registry --key demo-key.pub --extensions demo-extensions"
# Offline, from the verified registry: the dependency (git-helper) first;
# the policy grants the capabilities its rules name.
rm -rf demo-extensions
"$bin" install airvsx-demo.uses-git --registry registry --key demo-key.pub --state registry-state \
	--policy policies/examples/demo.yaml --extensions demo-extensions
"$bin" list --extensions demo-extensions

echo
echo "== airvsx run --extensions demo-extensions --command usesGit.showGitVersion --wait 3s"
# In a Node.js extension host: the command activates uses-git (and first
# git-helper, which the policy lets spawn /usr/bin/git, through the
# launcher's spawn broker); its messages and the audit of the spawn are
# printed.
"$bin" run --extensions demo-extensions --command usesGit.showGitVersion --wait 3s

echo
echo "== airvsx inspect (the package that declares and needs spawn)"
"$bin" inspect testdata/vsix/airvsx-demo.git-helper-0.3.0.vsix
