#!/usr/bin/env bash
# The README's two commands on a machine that never had Paywire's tools: the container test's base (Debian
# bookworm minbase with Node 24 and npm, nothing else: no podman, debootstrap, docker-compose, pgbouncer,
# Chromium, kubectl, git or curl), entered as the root of its own namespaces (enter.sh), a fresh clone of
# this repository's HEAD in it, then `npm ci && npm test` and `npm ci && npm start` with the README's first
# sale sent to it. It shares this machine's kernel, its way out to the network (through slirp4netns) and the
# npm registry's CA (NODE_EXTRA_CA_CERTS, ~/.npmrc), as CI's machine would; a suite may run beside it.
# About 30 minutes (the whole suite, plus installing podman, debootstrap and Chromium inside).
# Usage: test/fresh-machine/run.sh   (as root; needs podman, debootstrap and slirp4netns here)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/test/fresh-machine
export CONTAINERS_CONF=$root/test/containers/containers.conf
say() { echo "[fresh machine $(date -u +%T)] $*"; }
machine=${PAYWIRE_FRESH_MACHINE:-/var/tmp/paywire-fresh-machine}
slirp_socket=$machine.slirp
port=18180

cleanup() {
  # the service started last: its unshare's death ends the namespace, everything in it and its mounts
  [ -n "${service:-}" ] && pkill -KILL -P "$service" 2>/dev/null || true
  rm -f "$slirp_socket"
  [ -n "${KEEP_MACHINE:-}" ] || rm -rf "$machine"
}
trap cleanup EXIT

rm -rf "$machine"
base=$("$root/test/containers/base-image.sh")
mkdir -p "$machine"
container=$(podman create "$base")
podman export "$container" | tar -x -C "$machine"
podman rm "$container" >/dev/null
say "machine from $base: $(du -sh "$machine" | cut -f1)"

for tool in podman debootstrap docker-compose pgbouncer chromium kubectl git curl psql; do
  if chroot "$machine" sh -c "command -v $tool" >/dev/null 2>&1; then echo "FAIL: the machine already has $tool"; exit 1; fi
done
say "the machine has node $(chroot "$machine" node --version) and npm $(chroot "$machine" npm --version), no podman, debootstrap, docker-compose, pgbouncer, chromium, kubectl, git, curl or psql"

git clone -q --no-local "$root" "$machine/work/paywire"
say "cloned $(git -C "$root" rev-parse --short HEAD) into /work/paywire"
cp /etc/resolv.conf /etc/hosts "$machine/etc/"
env=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CI=true)
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$machine/etc/registry-ca.crt"
  env+=(NODE_EXTRA_CA_CERTS=/etc/registry-ca.crt)
fi
[ -f "$HOME/.npmrc" ] && grep -v '^nodedir=' "$HOME/.npmrc" >"$machine/root/.npmrc"
# The machine's own mount, PID and network namespaces, rooted at its directory (enter.sh says why not a
# chroot). Its network is its own, reaching out through slirp4netns as a separate machine would: sharing this
# machine's, the podman inside handed its containers the same 10.88.0.x addresses as the podman here and
# tore down port forwards with its own, failing a suite that ran beside it. When the command ends, the
# kernel ends everything it left running there, and the namespace's mounts go with it.
# inside COMMAND [PORT]: runs COMMAND in the machine; PORT, if given, is forwarded from 127.0.0.1 here.
inside() {
  unshare --net --mount --pid --fork --kill-child "$here/enter.sh" "$machine" "${env[@]}" \
    bash -c "for _ in \$(seq 1 150); do grep -q tap0 /proc/net/route && break; sleep 0.2; done
      grep -q tap0 /proc/net/route || { echo 'the machine has no network' >&2; exit 1; }
      cd /work/paywire && $1" &
  local machine_pid=$! namespace_pid='' status=0
  for _ in $(seq 1 100); do namespace_pid=$(pgrep -P "$machine_pid") && break; sleep 0.1; done
  rm -f "$slirp_socket"
  slirp4netns --configure --mtu=65520 --disable-host-loopback --api-socket "$slirp_socket" \
    "$namespace_pid" tap0 >/dev/null &
  local slirp=$!
  [ -z "${2:-}" ] || forward "$2"
  wait "$machine_pid" || status=$?
  kill "$slirp" 2>/dev/null || true
  return "$status"
}
forward() { # slirp4netns's API: add a forward from 127.0.0.1:PORT here to the machine's PORT
  for _ in $(seq 1 100); do [ -S "$slirp_socket" ] && break; sleep 0.1; done
  "$root/node_modules/node/bin/node" -e '
    const [socket, port] = process.argv.slice(1);
    const request = { execute: "add_hostfwd",
      arguments: { proto: "tcp", host_addr: "127.0.0.1", host_port: +port, guest_port: +port } };
    let answer = "";
    const api = require("node:net").connect(socket, () => api.end(JSON.stringify(request)));
    api.on("data", (chunk) => { answer += chunk; });
    api.on("close", () => { if (!answer.includes("return")) { console.error(answer); process.exit(1); } });
  ' "$slirp_socket" "$1"
}

t=$(date +%s)
if inside 'npm ci --no-audit --no-fund && npm test'; then say "PASS npm ci && npm test ($(($(date +%s) - t)) s)"; else
  say "FAIL npm ci && npm test"
  exit 1
fi

# npm start, and the README's first sale against it from outside the machine, through the forwarded port
inside "PORT=$port CORE_PORT=$((port + 1)) npm start" "$port" >"$machine/tmp/start.log" 2>&1 &
service=$!
for _ in $(seq 1 240); do
  grep -q 'Base URL' "$machine/tmp/start.log" && break
  sleep 1
done
answer=$(curl -s -u sandbox:sandbox-password -H 'Content-Type: application/json' \
  "http://localhost:$port/services/2/transactions" -d '{
    "cardTransactionType": "AUTH_CAPTURE", "amount": 25.50, "currency": "USD",
    "cardHolderInfo": {"firstName": "Ada", "lastName": "Lovelace", "zip": "02139"},
    "creditCard": {"cardNumber": "4263982640269299", "securityCode": "837",
                   "expirationMonth": "02", "expirationYear": "2031"}}' || true)
if echo "$answer" | grep -q '"transactionId"'; then say "PASS npm start and the README's first sale: $answer"; else
  say "FAIL npm start's first sale: $answer"
  tail -20 "$machine/tmp/start.log"
  exit 1
fi
