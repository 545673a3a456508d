#!/bin/sh
# The image's command: which Paywire process this container runs. tini is PID 1 and forwards signals;
# exec makes node the process it signals.
set -eu
cd /app
role=${1:-facade}
[ $# -gt 0 ] && shift
case "$role" in
  facade) exec node apps/facade/src/main.ts "$@" ;;
  # Facade and core in one process (infra/single-process.ts): a small deployment's one container.
  paywire) exec node infra/single-process.ts "$@" ;;
  core) exec node apps/core/src/main.ts "$@" ;;
  core-api) CORE_ROLE=api; export CORE_ROLE; exec node apps/core/src/main.ts "$@" ;;
  core-worker) CORE_ROLE=worker; export CORE_ROLE; exec node apps/core/src/main.ts "$@" ;;
  # The package scripts (one-shot operator commands), run by node itself: npm writes to $HOME.
  migrate | caller | merchant | processor | keys) exec node --run "$role" -- "$@" ;;
  *) exec "$role" "$@" ;;
esac
