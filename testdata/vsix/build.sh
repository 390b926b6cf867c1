#!/usr/bin/env bash
# Rebuilds the .vsix fixtures in testdata/vsix/ from the sources in
# testdata/extensions/, with the @vscode/vsce version pinned in
# testdata/vsce/package-lock.json.
#
#   bash testdata/vsix/build.sh
#
# Output is byte-for-byte reproducible:
#   * SOURCE_DATE_EPOCH makes vsce give every ZIP entry the same mtime and
#     sort the entries by path (vsce out/package.js writeVsix);
#   * TZ=UTC because yazl writes that mtime as a DOS date/time in local time;
#   * LC_ALL=C.UTF-8 because vsce sorts with String.prototype.localeCompare;
#   * each extension is packaged from a staging copy with normalized file
#     modes (0644 files, 0755 dirs), because yazl stores the source file mode
#     in the entry's external attributes (umask/checkout dependent otherwise).
# After a rebuild, update the sha256 list in testdata/vsix/README.md.
set -euo pipefail

export SOURCE_DATE_EPOCH=1700000000   # 2023-11-14T22:13:20Z
export TZ=UTC
export LC_ALL=C.UTF-8
umask 022

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
testdata="$(dirname "$here")"
tools="$testdata/vsce"
sources="$testdata/extensions"
out="$here"

if [ ! -x "$tools/node_modules/.bin/vsce" ]; then
  (cd "$tools" && npm ci --no-audit --no-fund </dev/null)
fi
vsce="$tools/node_modules/.bin/vsce"
echo "vsce $("$vsce" --version </dev/null)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# field <dir> <key>: print a top-level string field of <dir>/package.json
field() {
  node -e 'process.stdout.write(String(require(process.argv[1])[process.argv[2]]))' "$1/package.json" "$2"
}

# build <extension dir name> [vsce --target value] [package.json patch] [more vsce flags...]
# The patch is a JSON object shallow-merged into the staged package.json
# (written back with 2-space indent), so one source directory yields several
# versions without a source directory per version.
build() {
  local ext="$1" target="${2:-}" patch="${3:-}"
  local extra=("${@:4}")
  local work="$stage/$ext${target:+-$target}"
  if [ -n "$patch" ]; then
    work="$work-$(printf '%s' "$patch" | sha256sum | cut -c1-12)"
  fi
  rm -rf "$work"
  cp -R "$sources/$ext" "$work"
  if [ -n "$patch" ]; then
    node -e '
      const fs = require("fs");
      const [file, patch] = process.argv.slice(1);
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      Object.assign(pkg, JSON.parse(patch));
      fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
    ' "$work/package.json" "$patch"
  fi
  find "$work" -type d -exec chmod 0755 {} +
  find "$work" -type f -exec chmod 0644 {} +

  local id file
  id="$(field "$work" publisher).$(field "$work" name)-$(field "$work" version)"
  file="$out/$id${target:+@$target}.vsix"

  local args=(package --no-dependencies --allow-missing-repository -o "$file")
  [ -n "$target" ] && args+=(--target "$target")
  args+=("${extra[@]}")
  echo "== $ext${target:+ ($target)}${patch:+ $patch}${extra[*]:+ ${extra[*]}} -> ${file#"$testdata"/}"
  (cd "$work" && "$vsce" "${args[@]}" </dev/null)
}

build hello-command
build hello-command linux-x64
build night-theme
build git-helper

# More versions of hello-command, for the fixture Open VSX server
# (testkit/openvsxtest): an older one, a pre-release, an engine-incompatible
# newest one, and a second platform build.
build hello-command "" '{"version":"0.9.0"}'
build hello-command "" '{"version":"1.1.0"}' --pre-release
build hello-command "" '{"version":"2.0.0","engines":{"vscode":"^1.999.0"}}'
build hello-command darwin-arm64
# An extension pack, an extension with a dependency, and one from another
# namespace (served unsigned by the fixture server).
build demo-pack
build uses-git
build unsigned-tool
# An extension that talks to node over stdio for its whole life, as a
# language client does (the streaming spawn broker). It goes to local/,
# out of the fixture Open VSX server's reach, whose catalog the mirror
# and site tests know by heart.
mkdir -p "$out/local"
out="$out/local" build stream-echo

# The hostile extension of the kernel sandbox tests
# (hostlaunch/sandbox/escape_test.go). Its native files are committed and
# rebuilt here with the machine's gcc: bin/int80, a static x86-64 program
# that connects through the i386 int $0x80 ABI, bin/hello, a dynamically
# linked program (run through ld.so), and native/addon.node, a shared
# object whose constructor writes a marker. The staging copy's modes
# are normalized to 0644 like every file (and install unpacks 0644 too):
# the test sets the exec bits after installing. It goes to hostile/, out of
# the fixture Open VSX server's reach (testkit/openvsxtest serves
# testdata/vsix/*.vsix).
esc="$sources/escape-suite"
gcc -nostdlib -static -no-pie -s -Wl,--build-id=none -o "$esc/bin/int80" "$esc/bin/int80.S"
gcc -shared -fPIC -Os -s -Wl,--build-id=none -o "$esc/native/addon.node" "$esc/native/addon.c"
gcc -Os -s -Wl,--build-id=none -o "$esc/bin/hello" "$esc/bin/hello.c"
chmod 0755 "$esc/bin/int80" "$esc/bin/hello" "$esc/bin/run.sh"
chmod 0644 "$esc/native/addon.node"
mkdir -p "$out/hostile"
out="$out/hostile" build escape-suite

# An extension whose command calls an API member the host does not
# implement (hostlaunch/host's TestFixtureUnsupportedAPI, inspect and
# install in testdata/script/unsupported_api.txtar). In a subfolder, out
# of the fixture Open VSX server's reach, like escape-suite.
mkdir -p "$here/unsupported"
out="$here/unsupported" build webview-panel

# The extensions the host's editor features are tested with (documents,
# language features, tree views, quick input, the driver): in a subfolder,
# out of the fixture Open VSX server's listing.
mkdir -p "$here/host"
out="$here/host" build lang-tools
out="$here/host" build lsp-demo
# The extensions run's startup is tested with (testdata/script/run_startup.txtar
# and cmd/airvsx's TestRunStartupDeterministic): "*" with a dependency,
# onStartupFinished and workspaceContains, each noting when it activated.
for e in startup-lib startup-app startup-late startup-contains; do
  out="$here/host" build "$e"
done

(cd "$here" && sha256sum -- *.vsix local/*.vsix hostile/*.vsix unsupported/*.vsix host/*.vsix)
