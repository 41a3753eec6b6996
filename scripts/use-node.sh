# Puts the Node.js that the image runs (the Dockerfile's node:22; the exact version is in
# .node-version) first on PATH, and points npm's native builds (better-sqlite3) at its headers.
# Source it from the repository's root, in bash, zsh or sh:
#
#   . scripts/use-node.sh && npm ci
#
# .ci/run does this before every lane. It is for machines whose own Node is older (Debian's
# and many CI images' Node 20, past its end of life in April 2026) and for those with no
# version manager: fnm reads .node-version itself (`fnm use`), nvm takes it as `nvm install $(cat .node-version)`.
#
# The build comes from the npm registry as the package node-linux-<arch> (Node's official
# binary with its include/node headers; `npm pack` checks its integrity) and is kept in
# ${XDG_CACHE_HOME:-~/.cache}/shower-beer/node/ across runs: the first run fetches ~50 MB.
sb_node_version=$(tr -d ' \n\r' < .node-version)
case "$(uname -m)" in
  x86_64 | amd64) sb_node_arch=x64 ;;
  aarch64 | arm64) sb_node_arch=arm64 ;;
  *) sb_node_arch=$(uname -m) ;;
esac
sb_node_home="${XDG_CACHE_HOME:-$HOME/.cache}/shower-beer/node/node-v$sb_node_version-linux-$sb_node_arch"
if [ ! -x "$sb_node_home/bin/node" ]; then
  echo "Fetching Node.js $sb_node_version (node-linux-$sb_node_arch from the npm registry) into $sb_node_home"
  mkdir -p "$(dirname "$sb_node_home")"
  sb_node_tmp=$(mktemp -d "$(dirname "$sb_node_home")/fetching-XXXXXX")
  # Unpacked beside the final name, then renamed: a cut-short or concurrent fetch leaves no half tree.
  if (cd "$sb_node_tmp" && npm pack --silent "node-linux-$sb_node_arch@$sb_node_version" >/dev/null \
    && tar xzf "node-linux-$sb_node_arch-$sb_node_version.tgz" && "package/bin/node" --version >/dev/null); then
    mv -T "$sb_node_tmp/package" "$sb_node_home" 2>/dev/null || [ -x "$sb_node_home/bin/node" ]
  fi
  rm -rf "$sb_node_tmp"
fi
if [ -x "$sb_node_home/bin/node" ]; then
  PATH="$sb_node_home/bin:$PATH"
  # node-gyp builds better-sqlite3 against these headers instead of downloading them.
  npm_config_nodedir="$sb_node_home"
  export PATH npm_config_nodedir
  # The official build trusts only the certificate authorities bundled in it, where Debian's Node
  # trusts the system's: behind a proxy or mirror with its own CA, npm then fails every registry
  # fetch (SELF_SIGNED_CERT_IN_CHAIN). Hand it the system's list, unless one is set already.
  if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
  fi
  echo "Node.js $(node --version) from $sb_node_home"
else
  echo "Could not fetch Node.js $sb_node_version from the npm registry: Node.js $sb_node_version is needed" >&2
fi
unset sb_node_version sb_node_arch sb_node_home sb_node_tmp
# The status of the whole: true only when that Node is the one on PATH now (set -e stops .ci/run here).
[ "$(node --version 2>/dev/null)" = "v$(tr -d ' \n\r' < .node-version)" ]
