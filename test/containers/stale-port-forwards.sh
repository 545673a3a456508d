#!/usr/bin/env bash
# Removes the port forwards of containers that are gone or exited. Podman publishes a container's port with a
# DNAT rule (netavark's iptables driver, the one Debian's podman uses) that applies to every connection to that
# port on this machine, 127.0.0.1 included. A container that died without podman's cleanup (a run killed
# midway) leaves its rule behind, and the kernel later hands that port to any listener: a core or facade a test
# starts on it cannot be reached (connections go to the container's old address: EHOSTUNREACH after 3 s), and
# every call through it fails. Rules of containers that run (or are starting) are left alone.
# Usage: test/containers/stale-port-forwards.sh   (as root; containers/prepare.sh runs it)
set -euo pipefail
say() { echo "[port forwards] $*"; }

command -v iptables >/dev/null || exit 0
rules=$(iptables -t nat -S NETAVARK-HOSTPORT-DNAT 2>/dev/null) || exit 0
# Running, or on its way to running (a concurrent run's container sets its forwards up before it runs): kept.
# Gone, or exited without its cleanup (its conmon killed with the session that ran it): stale.
live() {
  local status
  status=$(podman container inspect --format '{{.State.Status}}' "$1" 2>/dev/null) || return 1
  [ "$status" != exited ] && [ "$status" != stopped ]
}
while read -r rule; do
  id=$(grep -o 'podman id: [0-9a-f]*' <<<"$rule" | cut -d' ' -f3) || continue
  live "$id" && continue
  port=$(grep -o -- '--dport [0-9]*' <<<"$rule" | cut -d' ' -f2)
  chain=$(grep -o -- '-j [A-Za-z0-9_-]*$' <<<"$rule" | cut -d' ' -f2)
  # The container's chain holds the port's own rules (mark, DNAT); they go first, then the jump to them.
  # iptables -S prints each rule shell-quoted (the comment has spaces), so each is read back through eval.
  while read -r own; do
    [ -n "$own" ] && eval "iptables -t nat ${own/#-A/-D}"
  done < <(iptables -t nat -S "$chain" | grep -E -- "--dport $port( |\$)" || true)
  eval "iptables -t nat ${rule/#-A/-D}"
  say "removed the port forward of gone or exited container ${id:0:12} (port $port)"
done < <(grep -- '--comment' <<<"$rules" || true)
