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

# build <extension dir name> [vsce --target value]
build() {
  local ext="$1" target="${2:-}"
  local src="$sources/$ext" work="$stage/$ext${2:+-$2}"
  rm -rf "$work"
  cp -R "$src" "$work"
  find "$work" -type d -exec chmod 0755 {} +
  find "$work" -type f -exec chmod 0644 {} +

  local id file
  id="$(field "$work" publisher).$(field "$work" name)-$(field "$work" version)"
  file="$out/$id${target:+@$target}.vsix"

  local args=(package --no-dependencies --allow-missing-repository -o "$file")
  [ -n "$target" ] && args+=(--target "$target")
  echo "== $ext${target:+ ($target)} -> ${file#"$testdata"/}"
  (cd "$work" && "$vsce" "${args[@]}" </dev/null)
}

build hello-command
build hello-command linux-x64
build night-theme
build git-helper

(cd "$out" && sha256sum -- *.vsix)
