#!/usr/bin/env bash
# Which Node runs compdata's make targets. Prints the folder to put first on PATH, or nothing
# when the `node` already on PATH is supported (22.12 or later).
#
# On an older Node (20 is past its end of life; better-sqlite3 13 needs 22), it brings a
# supported one from the npm registry, the only place it downloads from: the registry's
# `node-<platform>-<arch>` package (a whole Node release: binary and headers) is unpacked into
# .node/ in the repository (ignored by git) once, and reused afterwards. It says so in one line
# on stderr.
#
#   scripts/node.sh               the folder for make (empty: the machine's Node is used)
#   scripts/node.sh --version V   a bin folder with Node V's `node` from the registry, fetched if
#                                 missing (the test that runs the service on each supported
#                                 line): the whole release when .node/ has it, else the binary
#                                 alone, unpacked into .node/vV-node (no npm, no headers)
set -euo pipefail
cd "$(dirname "$0")/.."

# The version brought when the machine's is too old: the active LTS line named in .nvmrc.
BROUGHT=24.21.0
MINIMUM=22.12.0

# The bin folder of Node $1 under .node/, unpacked from the registry when missing; with a second
# argument, only the tar members it names (a path under the package, such as bin/node), into
# .node/v$1-node.
fetch() {
  local version=$1 dir=".node/v$1" members=()
  if [ -n "${2:-}" ]; then dir=".node/v$1-node" members=("package/$2"); fi
  if [ ! -x "$dir/bin/node" ]; then
    local platform package
    platform=$(uname -s | tr '[:upper:]' '[:lower:]')
    case "$(uname -m)" in
      x86_64) package="node-$platform-x64" ;;
      aarch64 | arm64) package="node-$platform-arm64" ;;
      *) echo "compdata: no Node package in the npm registry for $(uname -m); install Node $MINIMUM or later" >&2; exit 1 ;;
    esac
    mkdir -p .node
    tmp=$(mktemp -d .node/.fetch.XXXXXX) # global: the trap removes it however this ends
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null) ||
      { echo "compdata: could not fetch $package@$version from the npm registry" >&2; exit 1; }
    mkdir "$tmp/node"
    tar -xzf "$tmp"/*.tgz -C "$tmp/node" --strip-components=1 "${members[@]}"
    rm -rf "$dir"
    mv "$tmp/node" "$dir"
  fi
  echo "$PWD/$dir/bin"
}

if [ "${1:-}" = --version ]; then
  if [ -x ".node/v$2/bin/node" ]; then fetch "$2"; else fetch "$2" bin/node; fi
  exit 0
fi

current=$(node -p 'process.versions.node' 2>/dev/null || echo 0.0.0)
newer_or_same() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
if newer_or_same "$current" "$MINIMUM"; then exit 0; fi
echo "compdata: Node $current on PATH is older than $MINIMUM; using Node $BROUGHT from the npm registry (.node/v$BROUGHT)" >&2
fetch "$BROUGHT"
