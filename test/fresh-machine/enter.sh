#!/usr/bin/env bash
# Makes a directory the root of the mount namespace this runs in, then runs a command there with only the
# environment given: enter.sh ROOT NAME=VALUE... COMMAND...   Run it under `unshare --mount --pid --fork`.
# A pivot, not a chroot: a container runtime inside joins its containers' namespaces for `podman exec` (and
# so for health checks), and a joined mount namespace starts at that namespace's root. Under a chroot that
# root was the host's, so every health check ran on the host's files and failed.
set -euo pipefail
root=$1
shift
mount --bind "$root" "$root" # pivot_root needs the new root to be a mount point
mount -t proc proc "$root/proc" # this PID namespace's processes only
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/run"
mkdir -p "$root/.host"
cd "$root"
pivot_root . .host
umount -l /.host
exec /usr/bin/env -i "$@"
