#!/usr/bin/env bash
# Removes the port forwards of containers that are gone or exited. Podman publishes a container's port with a
# DNAT rule (netavark's iptables driver, the one Debian's podman uses) that applies to every connection to that
# port on this machine, 127.0.0.1 included. A container that died without podman's cleanup (a run killed
# midway) leaves its rules behind, and the kernel later hands that port to any listener: a core or facade a test
# starts on it cannot be reached (connections go to the container's old address: EHOSTUNREACH after 3 s), and
# every call through it fails. Forwards of containers that run (or are starting) are left alone, and so is a
# stale forward of a port that a running container forwards too (their rules cannot be told apart): it is said.
# Usage: test/containers/stale-port-forwards.sh   (as root; containers/prepare.sh and test/global-setup.ts)
set -euo pipefail
say() { echo "[port forwards] $*"; }

command -v iptables >/dev/null || exit 0
command -v podman >/dev/null || exit 0
rules=$(iptables -t nat -S NETAVARK-HOSTPORT-DNAT 2>/dev/null) || exit 0

# Stale: the container is gone, or exited without its cleanup (its conmon killed with the session that ran
# it). Kept: running or on its way to running (a concurrent run's container sets its forwards up before it
# runs), and whatever podman cannot answer for.
stale() {
  local status
  podman container exists "$1" && status=$? || status=$?
  [ "$status" = 1 ] && return 0
  [ "$status" = 0 ] || return 1
  status=$(podman container inspect --format '{{.State.Status}}' "$1" 2>/dev/null) || return 1
  [ "$status" = exited ] || [ "$status" = stopped ]
}

# A rule as iptables -S prints it (shell-quoted: a comment has spaces), deleted; xargs reads the quotes and
# runs nothing in them.
delete() { printf '%s\n' "${1/#-A/-D}" | xargs -r iptables -t nat; }

# Each forward: its jump rule (named by its network and container id, "dnat name: <network> id: <id>"), the
# port, and the network's chain that holds the port's mark and DNAT rules (a chain per network, not per
# container).
forwards=$(grep -- '--comment' <<<"$rules" || true)
portOf() { grep -o -- '--dport [0-9]*' <<<"$1" | cut -d' ' -f2; }
idOf() { grep -o ' id: [0-9a-f]*' <<<"$1" | cut -d' ' -f3; }
live_ports=()
while read -r rule; do
  [ -n "$rule" ] || continue
  stale "$(idOf "$rule")" || live_ports+=("$(portOf "$rule")")
done <<<"$forwards"

while read -r rule; do
  [ -n "$rule" ] || continue
  id=$(idOf "$rule" || true)
  [ -n "$id" ] && stale "$id" || continue
  port=$(portOf "$rule")
  if printf '%s\n' "${live_ports[@]}" | grep -qx "$port"; then
    say "left the stale forward of port $port (container ${id:0:12}): a running container forwards it too"
    continue
  fi
  chain=$(grep -o -- '-j [A-Za-z0-9_-]*$' <<<"$rule" | cut -d' ' -f2)
  # The port's own rules in the network's chain go first (no live forward has that port), then the jump.
  while read -r own; do
    [ -n "$own" ] && delete "$own"
  done < <(iptables -t nat -S "$chain" | grep -E -- "--dport $port( |\$)" || true)
  delete "$rule"
  say "removed the port forward of gone or exited container ${id:0:12} (port $port)"
done <<<"$forwards"
