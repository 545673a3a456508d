#!/usr/bin/env bash
# A local stand-in for node:24-bookworm-slim, since no image registry is reachable here: Debian bookworm
# (debootstrap minbase), the Node binary of the repo's pinned `node` package and its C headers in
# /usr/local/include/node (native addons such as pkcs11js compile against them, with no download), npm at
# packageManager's version, and the user node (1000) as in the official image. Cached as a tarball under
# PAYWIRE_BASE_CACHE (default /var/cache/paywire-base), keyed on this recipe and both versions.
# Prints the image reference to pass as the BASE_IMAGE build argument.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${PAYWIRE_BASE_CACHE:-/var/cache/paywire-base}
node_bin=$root/node_modules/node/bin/node
node_version=$("$node_bin" --version)
npm_version=$("$node_bin" -p "require('$root/package.json').packageManager.split('@')[1]")
key=$( { cat "$0"; echo "$node_version $npm_version"; } | sha256sum | cut -c1-16)
image=localhost/paywire-base:$key
tarball=$cache/$key.tar

if podman image exists "$image"; then echo "$image"; exit 0; fi
if [ ! -f "$tarball" ]; then
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >&2
  install -m 0755 "$node_bin" "$work/rootfs/usr/local/bin/node"
  # the headers of this very Node, from its npm package (the `node` package's own copy may be pruned)
  platform=$("$node_bin" -p 'process.platform + "-" + process.arch')
  (cd "$work" && npm pack --silent "node-$platform@${node_version#v}" "npm@$npm_version" >/dev/null)
  mkdir -p "$work/node" "$work/rootfs/usr/local/include"
  tar -xzf "$work/node-$platform-${node_version#v}.tgz" --strip-components=1 -C "$work/node" package/include/node
  mv "$work/node/include/node" "$work/rootfs/usr/local/include/node"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" --strip-components=1 -C "$work/rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  chroot "$work/rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node && apt-get clean && rm -rf /var/lib/apt/lists/*' >&2
  tar -C "$work/rootfs" -cf "$work/base.tar" . # in this build's own folder: a run beside it may build too
  mv "$work/base.tar" "$tarball"
fi
podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$tarball" "$image" >&2
echo "$image"
