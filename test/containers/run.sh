#!/usr/bin/env bash
# The image proven with real containers (podman + runc): PostgreSQL 18, migrate, core api, core worker and
# facade on separate networks; a sale and its keyed retry through the facade's published port; health,
# readiness and metrics; a caller without credentials on core's network refused. Every check prints PASS or
# FAIL and the run goes on, so one missing piece does not hide the others; exit 1 if any failed.
# Usage: test/containers/run.sh   (as root; installs podman from Debian when missing; KEEP_CONTAINERS=1 keeps them)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/test/containers
export CONTAINERS_CONF=$here/containers.conf
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started))s"; }
say() { echo "[containers $(elapsed)] $*"; }

"$here/prepare.sh"
if ! command -v podman >/dev/null; then
  echo '######################################################################'
  echo '## SKIPPED: podman cannot be installed here; the image is NOT proven ##'
  echo '######################################################################'
  exit 0
fi

run=pw$$
image=localhost/paywire:test
postgres_image=localhost/paywire-postgres:18
failures=0
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }

cleanup() {
  [ -n "${KEEP_CONTAINERS:-}" ] && { say "kept: containers and networks named $run-*"; return; }
  podman pod rm -f "paywire-core-api-$run-pod-0" "paywire-core-worker-$run-pod-0" "paywire-facade-$run-pod-0" >/dev/null 2>&1 || true
  podman rm -f -t 5 "$run-probe" "$run-facade" "$run-core-api" "$run-core-worker" "$run-paywire" "$run-postgres" >/dev/null 2>&1 || true
  podman network rm -f "$run-facade-net" "$run-core-net" "$run-db-net" "$run-egress-net" >/dev/null 2>&1 || true
  kill ${health_driver:-} ${podman_service:-} 2>/dev/null || true
  local project="label=com.docker.compose.project=$run"
  podman ps -aq --filter "$project" | xargs -r podman rm -f -t 5 >/dev/null 2>&1 || true
  podman network ls -q --filter "$project" | xargs -r podman network rm -f >/dev/null 2>&1 || true
  podman volume rm -f "${run}_postgres-data" >/dev/null 2>&1 || true
  rm -rf "${work:-}"
}
trap cleanup EXIT

# --- images (base and PostgreSQL from prepare.sh) ---------------------------------------------------------
base=$("$here/base-image.sh")
t=$(date +%s)
previous=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
ca_secret=()
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && ca_secret=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS")
podman build -q --format docker -f "$root/infra/Containerfile" "${ca_secret[@]}" \
  --build-arg "BASE_IMAGE=$base" -t "$image" "$root" >/dev/null
say "paywire image built in $(($(date +%s) - t))s"
# The image this run replaced, so runs do not pile up untagged copies.
[ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$image")" ] &&
  podman rmi "$previous" >/dev/null 2>&1 || true

# --- networks: the database and core are internal; only the worker reaches out (IPNs) ---------------------
podman network create --internal "$run-db-net" >/dev/null
podman network create --internal "$run-core-net" >/dev/null
podman network create "$run-facade-net" >/dev/null
podman network create "$run-egress-net" >/dev/null

# Conditions are polled (bounded), never slept on.
wait_until() { # description timeout-seconds command...
  local what=$1 limit=$2
  shift 2
  local deadline=$(($(date +%s) + limit))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      fail "$what (not within ${limit}s)"
      return 0
    fi
    sleep 0.5
  done
  pass "$what"
}

password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
card_key=$(head -c 32 /dev/urandom | base64)
database_url="postgresql://postgres:$password@$run-postgres:5432/postgres"
# Long-running containers keep the image HEALTHCHECK (run on demand below); one-shots and probes have none.
hardening=(--read-only --cap-drop=all --security-opt=no-new-privileges)
common=(--no-healthcheck "${hardening[@]}")

podman run -d --name "$run-postgres" --no-healthcheck --network "$run-db-net" \
  -e "POSTGRES_PASSWORD=$password" "$postgres_image" >/dev/null
wait_until "postgres accepts connections" 60 \
  sh -c "podman logs $run-postgres 2>&1 | grep -q 'ready to accept connections'"

# The pkcs11 key provider in the image: its native binding (pkcs11js) and Debian's SoftHSM2 (docs/keys.md).
hsm_script='set -e
export SOFTHSM2_CONF=/tmp/softhsm2.conf KEY_PROVIDER=pkcs11 PKCS11_MODULE=/usr/lib/softhsm/libsofthsm2.so
export PKCS11_TOKEN_LABEL=paywire PKCS11_PIN=246810
mkdir /tmp/tokens
echo "directories.tokendir = /tmp/tokens" >"$SOFTHSM2_CONF"
softhsm2-util --init-token --free --label paywire --pin 246810 --so-pin 135790 >/dev/null
cd /app && node --run keys -- create-kek'
if out=$(podman run --rm "${common[@]}" --network none --entrypoint sh "$image" -c "$hsm_script" 2>&1); then
  pass "the pkcs11 key provider loads in the image (SoftHSM2 token, keys create-kek)"
else fail "pkcs11 in the image: $out"; fi

# One-shot commands of the image on the database network: migrate, the first admin credential.
oneshot() { podman run --rm "${common[@]}" --network "$run-db-net" -e "DATABASE_URL=$database_url" "$image" "$@"; }
if out=$(oneshot migrate 2>&1); then pass "migrate (npm run migrate)"; else fail "migrate: $out"; fi
if out=$(oneshot migrate 2>&1); then pass "migrate again is a no-op"; else fail "second migrate: $out"; fi
# The first admin credential is the one thing issued from the database (its owner); the rest goes through core.
pwc='pwc_[0-9]*_[A-Za-z0-9_-]*'
admin=$(oneshot caller bootstrap --name container-operator 2>&1 | grep -o "$pwc" || true)
if [ -n "$admin" ]; then pass "first admin credential bootstrapped (npm run caller -- bootstrap)"; else
  fail "caller bootstrap gave no credential"; fi

core_env=(-e "DATABASE_URL=$database_url" -e "CARD_ENCRYPTION_KEY=$card_key" -e CORE_METRICS_PORT=9465)
podman run -d --name "$run-core-api" "${hardening[@]}" --health-interval=disable --network "$run-db-net" \
  --network "$run-core-net" "${core_env[@]}" "$image" core-api >/dev/null
podman run -d --name "$run-core-worker" "${hardening[@]}" --health-interval=disable --network "$run-db-net" \
  --network "$run-egress-net" "${core_env[@]}" "$image" core-worker >/dev/null
# the facade's credential, through core's admin procedures with the admin credential (core may still be starting)
issue_facade() {
  podman run --rm "${common[@]}" --network "$run-core-net" -e "CORE_URL=http://$run-core-api:8081/trpc" \
    -e "PAYWIRE_ADMIN_CREDENTIAL=$admin" "$image" caller issue --name facade --scope any-merchant >"$1" 2>&1
}
issued=$(mktemp)
wait_until "core issues the facade's credential (npm run caller -- issue)" 90 issue_facade "$issued"
credential=$(grep -o "$pwc" "$issued" || true)
if [ -n "$credential" ]; then pass "facade credential issued through core (npm run caller)"; else
  fail "caller issue gave no credential: $(head -c 300 "$issued")"; fi
# a merchant, through core's admin procedure too (npm run merchant)
if out=$(podman run --rm "${common[@]}" --network "$run-core-net" -e "CORE_URL=http://$run-core-api:8081/trpc" \
  -e "PAYWIRE_ADMIN_CREDENTIAL=$admin" "$image" merchant create --username container-merchant \
  --password container-password 2>&1); then pass "merchant created through core (npm run merchant)"
else fail "merchant create: $out"; fi
podman run -d --name "$run-facade" "${hardening[@]}" --health-interval=disable --network "$run-core-net" \
  --network "$run-facade-net" -p 127.0.0.1::8080 -e "CORE_URL=http://$run-core-api:8081/trpc" \
  -e "CORE_CREDENTIAL=$credential" -e METRICS_PORT=9464 "$image" facade >/dev/null
port=$(podman port "$run-facade" 8080 | cut -d: -f2)
base_url=http://127.0.0.1:$port

status() { curl -s -o /dev/null -w '%{http_code}' "$@" || true; }
wait_until "facade answers on its published port" 60 sh -c "curl -sf -o /dev/null $base_url/healthz || curl -s -o /dev/null -u x:y $base_url/services/2/transactions/1"

# --- a sale and its keyed retry ---------------------------------------------------------------------------
sale='{"cardTransactionType":"AUTH_CAPTURE","amount":25.50,"currency":"USD",
  "cardHolderInfo":{"firstName":"Ada","lastName":"Lovelace","zip":"02139"},
  "creditCard":{"cardNumber":"4263982640269299","securityCode":"837","expirationMonth":"02","expirationYear":"2031"}}'
key=container-$run
sell() {
  curl -s -D "$1.headers" -o "$1" -w '%{http_code}' -u container-merchant:container-password \
    -H 'Content-Type: application/json' -H "Idempotency-Key: $key" "$base_url/services/2/transactions" -d "$sale" || true
}
work=$(mktemp -d)
first=$(sell "$work/first")
id=$(jq -r '.transactionId // empty' "$work/first" 2>/dev/null || true)
if [ "$first" = 200 ] && [ -n "$id" ]; then pass "sale through the facade (transaction $id)"; else
  fail "sale: $first $(head -c 300 "$work/first")"; fi
second=$(sell "$work/second")
if [ "$second" = 200 ] && cmp -s "$work/first" "$work/second"; then pass "keyed retry answers the same bytes"; else
  fail "keyed retry: $second $(head -c 300 "$work/second")"; fi
podman logs "$run-core-api" >"$work/core.log" 2>&1 || true
if grep -q 4263982640269299 "$work/core.log" "$work/first.headers"; then fail "a card number in core's log"; else
  pass "no card number in core's log"; fi

# --- health, readiness, metrics ---------------------------------------------------------------------------
[ "$(status "$base_url/healthz")" = 200 ] && pass "facade /healthz 200" || fail "facade /healthz (GET /healthz in the facade)"
[ "$(status "$base_url/readyz")" = 200 ] && pass "facade /readyz 200" || fail "facade /readyz (GET /readyz in the facade)"
for container in facade core-api core-worker; do
  if podman healthcheck run "$run-$container" >/dev/null 2>&1; then pass "image HEALTHCHECK healthy: $container"; else
    fail "image HEALTHCHECK: $container (GET /healthz on its port)"; fi
done

# A probe on a network: the image's node fetching a URL, printing the status and whether the body has a text.
probe() { # network url [header] -> "status matched"
  podman run --rm "${common[@]}" --network "$1" --entrypoint node "$image" -e '
    const [url, header, text] = process.argv.slice(1);
    const headers = header ? { [header.split(":")[0]]: header.split(":").slice(1).join(":").trim() } : {};
    fetch(url, { headers, signal: AbortSignal.timeout(5000) }).then(
      async (r) => console.log(r.status, (await r.text()).includes(text || "")),
      () => console.log("unreachable false"));' "$2" "${3:-}" "${4:-}"
}
[ "$(probe "$run-core-net" "http://$run-core-api:8081/healthz")" = "200 true" ] && pass "core /healthz 200" || fail "core /healthz (GET /healthz in core)"
[ "$(probe "$run-core-net" "http://$run-core-api:8081/readyz")" = "200 true" ] && pass "core /readyz 200" || fail "core /readyz (GET /readyz in core)"
[ "$(probe "$run-facade-net" "http://$run-facade:9464/metrics" '' http_request_duration)" = "200 true" ] &&
  pass "facade metrics on METRICS_PORT count requests" || fail "facade metrics (prom-client on METRICS_PORT 9464)"
[ "$(probe "$run-core-net" "http://$run-core-api:9465/metrics" '' '# TYPE')" = "200 true" ] &&
  pass "core metrics on CORE_METRICS_PORT" || fail "core metrics (prom-client on CORE_METRICS_PORT 9465)"

# --- core refuses a caller without credentials; the database is not on core's network --------------------
merchants_call="http://$run-core-api:8081/trpc/callers.whoami"
answer=$(probe "$run-core-net" "$merchants_call")
[ "${answer%% *}" = 401 ] && pass "core refuses a caller without credentials (401)" || fail "core without credentials answered $answer (issue 12)"
answer=$(probe "$run-core-net" "$merchants_call" "Authorization: Bearer $credential")
[ "${answer%% *}" = 200 ] && pass "the facade's credential is accepted by core" || fail "core with the facade's credential answered $answer"
answer=$(probe "$run-core-net" "http://$run-postgres:5432/")
[ "$answer" = "unreachable false" ] && pass "postgres unreachable from core's network" || fail "postgres reachable from core's network: $answer"
answer=$(probe "$run-facade-net" "http://$run-core-api:8081/healthz")
[ "$answer" = "unreachable false" ] && pass "core unreachable from the facade's public network" || fail "core reachable from the facade's network: $answer"

# --- the sandbox overlay's Deployments played by podman (kube-play-spec.ts says what it adapts) ------------
# kustomize renders through kubectl, which Debian does not package: without it, say so loudly and go on.
kube_deployments=(paywire-core-api paywire-core-worker paywire-facade)
if command -v kubectl >/dev/null; then
  rendering=$(kubectl kustomize "$root/infra/k8s/overlays/sandbox")
else
  say "SKIPPED: kubectl is not installed here; the overlay's Deployments are NOT played by podman"
  kube_deployments=()
fi
for deployment in "${kube_deployments[@]}"; do
  spec=$work/$deployment.yaml
  echo "$rendering" | "$root/node_modules/node/bin/node" "$here/kube-play-spec.ts" "$deployment" "$run" "$image" \
    "paywire-db-app/uri=$database_url" "paywire-db-core/uri=$database_url" "paywire-core/card-encryption-key=$card_key" \
    "paywire-facade/core-credential=$credential" >"$spec"
  if ! out=$(podman kube play --network "$run-db-net" "$spec" 2>&1); then fail "kube play $deployment: $out"; continue; fi
  container=$(podman ps -a --filter "pod=$deployment-$run-pod-0" --format '{{.Names}} {{.IsInfra}}' | awk '$2 == "false" { print $1 }')
  facts=$(podman inspect "$container" --format \
    '{{.State.Running}} {{.Config.User}} {{.HostConfig.ReadonlyRootfs}} {{len .EffectiveCaps}} {{.HostConfig.SecurityOpt}} {{.HostConfig.Memory}}')
  seccomp=$(podman exec "$container" grep -c 'Seccomp:.*2' /proc/1/status 2>/dev/null || echo 0)
  case "$facts $seccomp" in
    "true 1000:1000 true 0 [no-new-privileges] "[1-9]*" 1") pass "kube play $deployment: running as 1000, read-only, no capabilities, seccomp, memory limit" ;;
    *) fail "kube play $deployment: running/user/read-only/caps/opts/memory/seccomp = $facts $seccomp" ;;
  esac
  podman kube down "$spec" >/dev/null 2>&1 || true
done

# --- drain: SIGTERM through tini, exit 0 ------------------------------------------------------------------
for container in facade core-worker core-api; do
  podman stop -t 30 "$run-$container" >/dev/null
  code=$(podman inspect -f '{{.State.ExitCode}}' "$run-$container")
  [ "$code" = 0 ] && pass "$container exits 0 on SIGTERM" || fail "$container exited $code on SIGTERM"
done

# --- the single-process role (npm start's topology): facade and core in one container -----------------------
podman run -d --name "$run-paywire" "${hardening[@]}" --health-interval=disable --network "$run-db-net" \
  --network "$run-facade-net" -p 127.0.0.1::8080 "${core_env[@]}" -e "CORE_CREDENTIAL=$credential" \
  "$image" paywire >/dev/null
base_url=http://127.0.0.1:$(podman port "$run-paywire" 8080 | cut -d: -f2)
wait_until "paywire role ready" 60 curl -sf -o /dev/null "$base_url/readyz"
key=single-$run
first=$(sell "$work/single")
id=$(jq -r '.transactionId // empty' "$work/single" 2>/dev/null || true)
if [ "$first" = 200 ] && [ -n "$id" ]; then pass "paywire role: a sale (transaction $id)"; else
  fail "paywire role sale: $first $(head -c 300 "$work/single")"; fi
if podman healthcheck run "$run-paywire" >/dev/null 2>&1; then pass "image HEALTHCHECK healthy: paywire"; else
  fail "image HEALTHCHECK: paywire"; fi
podman stop -t 30 "$run-paywire" >/dev/null
code=$(podman inspect -f '{{.State.ExitCode}}' "$run-paywire")
[ "$code" = 0 ] && pass "paywire exits 0 on SIGTERM" || fail "paywire exited $code on SIGTERM"

# --- infra/compose.yaml as written, by Debian's docker-compose against podman's Docker API ------------------
# A copy of infra/ with this run's secrets (compose reads them from files beside it); the images built above.
# Podman without systemd schedules no health checks, so a bounded loop runs them as systemd's timer would:
# compose's `condition: service_healthy` waits on the same status docker's would give.
compose_dir=$work/compose
mkdir -p "$compose_dir/secrets"
cp "$root/infra/compose.yaml" "$compose_dir/"
cp -r "$root/infra/postgres-init" "$compose_dir/"
owner_pw=$(head -c 12 /dev/urandom | base64 | tr -d '/+=')
app_pw=$(head -c 12 /dev/urandom | base64 | tr -d '/+=')
printf 'POSTGRES_PASSWORD=%s\nPAYWIRE_OWNER_PASSWORD=%s\nPAYWIRE_APP_PASSWORD=%s\n' "$password" "$owner_pw" "$app_pw" \
  >"$compose_dir/secrets/postgres.env"
printf 'DATABASE_URL=postgresql://paywire_app:%s@postgres:5432/paywire\nCARD_ENCRYPTION_KEY=%s\n' "$app_pw" "$card_key" \
  >"$compose_dir/secrets/core.env"
printf 'DATABASE_URL=postgresql://paywire_owner:%s@postgres:5432/paywire\nDATABASE_APP_ROLE=paywire_app\n' "$owner_pw" \
  >"$compose_dir/secrets/migrate.env"
printf 'CORE_CREDENTIAL=\n' >"$compose_dir/secrets/facade.env"
podman system service --time=0 "unix://$work/podman.sock" 2>"$work/podman-service.log" &
podman_service=$!
(for _ in $(seq 1 300); do
  for id in $(podman ps -q --filter "label=com.docker.compose.project=$run" --filter health=starting --filter health=unhealthy); do
    podman healthcheck run "$id" >/dev/null 2>&1 || true
  done
  sleep 1
done) &
health_driver=$!
compose() { # bounded: a compose waiting on a condition that never comes gives up
  DOCKER_HOST="unix://$work/podman.sock" PAYWIRE_IMAGE=$image POSTGRES_IMAGE=$postgres_image \
    FACADE_PUBLISH=127.0.0.1: timeout 240 docker-compose -p "$run" -f "$compose_dir/compose.yaml" "$@"
}
wait_until "podman's Docker API answers" 30 test -S "$work/podman.sock"
# From nothing, core's start must wait for postgres to be healthy and migrate to have completed.
if out=$(compose up -d --no-build core-api core-worker 2>&1); then pass "compose up core-api core-worker"; else
  fail "compose up: $(echo "$out" | tail -5)"; fi
migrate_end=$(podman inspect -f '{{.State.FinishedAt.Unix}} {{.State.ExitCode}}' "${run}_migrate_1" 2>/dev/null || echo '0 x')
core_start=$(podman inspect -f '{{.State.StartedAt.Unix}}' "${run}_core-api_1" 2>/dev/null || echo 0)
if [ "${migrate_end#* }" = 0 ] && [ "${migrate_end% *}" -le "$core_start" ] && [ "$core_start" -gt 0 ]; then
  pass "compose: migrate completed (exit 0) before core-api started (depends_on conditions honoured)"
else fail "compose: migrate end/exit $migrate_end, core-api start $core_start"; fi
compose_admin=$(compose run --rm migrate caller bootstrap --name compose-operator 2>&1 | grep -o "$pwc" || true)
compose_issue() {
  compose run --rm --no-deps -e "PAYWIRE_ADMIN_CREDENTIAL=$compose_admin" facade caller issue --name facade \
    --scope any-merchant >"$1" 2>&1
}
wait_until "compose: core-api issues the facade's credential" 90 compose_issue "$work/compose-issued"
compose_credential=$(grep -o "$pwc" "$work/compose-issued" || true)
printf 'CORE_CREDENTIAL=%s\n' "$compose_credential" >"$compose_dir/secrets/facade.env"
compose run --rm --no-deps -e "PAYWIRE_ADMIN_CREDENTIAL=$compose_admin" facade merchant create \
  --username container-merchant --password container-password >/dev/null 2>&1 ||
  fail "compose: merchant create through core"
if out=$(compose up -d --no-build 2>&1); then pass "compose up (facade after core-api is healthy)"; else
  fail "compose up facade: $(echo "$out" | tail -5)"; fi
base_url=http://$(podman port "${run}_facade_1" 8080 2>/dev/null | head -1 || true)
wait_until "compose: facade ready" 60 curl -sf -o /dev/null "$base_url/readyz"
key=compose-$run
first=$(sell "$work/compose-first")
second=$(sell "$work/compose-second")
if [ "$first" = 200 ] && [ "$second" = 200 ] && jq -e .transactionId "$work/compose-first" >/dev/null 2>&1 &&
  cmp -s "$work/compose-first" "$work/compose-second"; then pass "compose: a sale and its keyed retry, the same bytes"
else fail "compose sale: $first/$second $(head -c 300 "$work/compose-first")"; fi
compose stop -t 30 >/dev/null 2>&1 || true
for service in facade core-api core-worker; do
  code=$(podman inspect -f '{{.State.ExitCode}}' "${run}_${service}_1" 2>/dev/null || echo missing)
  [ "$code" = 0 ] && pass "compose: $service drains and exits 0 on SIGTERM" || fail "compose: $service exited $code on stop"
done
compose down -v -t 5 >/dev/null 2>&1 || true
kill "$health_driver" "$podman_service" 2>/dev/null || true

if [ "$failures" != 0 ]; then
  for container in postgres core-api core-worker facade paywire; do
    say "last lines of $container:"
    podman logs --tail 15 "$run-$container" 2>&1 | cut -c1-400 || true
  done
fi
say "done: $failures failed"
[ "$failures" = 0 ]
