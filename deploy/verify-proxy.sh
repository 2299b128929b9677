#!/usr/bin/env bash
# Checks deploy/proxy/Caddyfile and deploy/proxy/nginx.conf with the real
# servers, on loopback only: each proxy in front of a small upstream that
# records what reaches it. Not part of `npm test` (it needs caddy and nginx).
#
#   CADDY_BIN=/path/to/caddy NGINX_BIN=/path/to/nginx deploy/verify-proxy.sh
#
# For each proxy: a signed-looking POST /webhooks/pod reaches the upstream with
# its path, query and X-Connect-* headers unchanged and X-Forwarded-Proto https;
# GET /status and /metrics are answered 404 by the proxy and never forwarded;
# a 2 MiB body is refused with 413. nginx: plain HTTP is redirected to HTTPS.
# Caddy serves PODSYNC_DOMAIN=localhost:<port> with its internal CA; nginx gets
# a self-signed certificate in place of the Let's Encrypt paths.
set -euo pipefail
cd "$(dirname "$0")/.."
CADDY=${CADDY_BIN:-caddy}
unset NGINX  # nginx reads $NGINX as inherited sockets
NGINX=${NGINX_BIN:-nginx}
UPSTREAM_PORT=${UPSTREAM_PORT:-18080}
CADDY_PORT=${CADDY_PORT:-18443}
NGINX_HTTPS_PORT=${NGINX_HTTPS_PORT:-18444}
NGINX_HTTP_PORT=${NGINX_HTTP_PORT:-18081}

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# The upstream: appends one JSON line per request to $work/seen.jsonl, answers 200.
node -e '
  const http = require("node:http"), fs = require("node:fs")
  http.createServer((req, res) => {
    let size = 0
    req.on("data", (c) => (size += c.length))
    req.on("end", () => {
      fs.appendFileSync(process.argv[1], JSON.stringify({ method: req.method, url: req.url, headers: req.headers, size }) + "\n")
      res.end("{\"ok\":true}")
    })
  }).listen(Number(process.argv[2]), "127.0.0.1")
' "$work/seen.jsonl" "$UPSTREAM_PORT" &
pids+=($!)

seen() { if [ -f "$work/seen.jsonl" ]; then wc -l < "$work/seen.jsonl"; else echo 0; fi; }
last() { tail -1 "$work/seen.jsonl"; }
wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; fail "nothing listens on $1"; }

check_proxy() { # name base-url
  local name=$1 base=$2 before status
  before=$(seen)
  status=$(curl -sk -o /dev/null -w '%{http_code}' -X POST "$base/webhooks/pod?delivery=1" \
    -H 'Content-Type: application/json' -H 'X-Connect-Timestamp: 1700000000' -H 'X-Connect-Nonce: n-1' \
    -H 'X-Connect-Signature: c2lnbmF0dXJl' -H 'X-Connect-Client-Key: ck' --data '{"topic":"TOPIC_ORDER_COMPLETED"}')
  [ "$status" = 200 ] || fail "$name: POST /webhooks/pod answered $status"
  [ "$(seen)" -eq $((before + 1)) ] || fail "$name: the webhook did not reach the upstream"
  last | node -e '
    const r = JSON.parse(require("fs").readFileSync(0, "utf8")), name = process.argv[1]
    const want = { url: "/webhooks/pod?delivery=1", "x-connect-timestamp": "1700000000", "x-connect-nonce": "n-1",
      "x-connect-signature": "c2lnbmF0dXJl", "x-connect-client-key": "ck", "x-forwarded-proto": "https" }
    for (const [k, v] of Object.entries(want)) {
      const got = k === "url" ? r.url : r.headers[k]
      if (got !== v) { console.error(`FAIL: ${name}: ${k} reached the upstream as ${got}, expected ${v}`); process.exit(1) }
    }
    if (r.size !== 33) { console.error(`FAIL: ${name}: body of ${r.size} bytes, expected 33`); process.exit(1) }
  ' "$name"
  pass "$name: POST /webhooks/pod forwarded with path, query and X-Connect-* headers unchanged, X-Forwarded-Proto https"

  for path in /status /metrics /reports/latest.html /healthz; do
    before=$(seen)
    status=$(curl -sk -o /dev/null -w '%{http_code}' "$base$path")
    [ "$status" = 404 ] || fail "$name: GET $path answered $status, expected 404"
    [ "$(seen)" -eq "$before" ] || fail "$name: GET $path reached the upstream"
  done
  pass "$name: /status, /metrics, /reports, /healthz answered 404 by the proxy, not forwarded"

  head -c $((2 * 1024 * 1024)) /dev/zero > "$work/big"
  before=$(seen)
  status=$(curl -sk -o /dev/null -w "%{http_code}" -X POST "$base/webhooks/pod" --data-binary "@$work/big" || true)
  [ "$(seen)" -eq "$before" ] || fail "$name: the 2 MiB body reached the upstream"
  if [ "$status" = 413 ]; then
    pass "$name: a 2 MiB body refused with 413"
  elif [ "${3:-}" = old-caddy ] && { [ "$status" = 502 ] || [ "$status" = 000 ]; }; then
    # Caddy before 2.7 turns request_body's limit into 502 (or an HTTP/2 stream reset):
    # caddyserver/caddy#5652. The upstream still never gets the whole body.
    pass "$name: a 2 MiB body cut off at the limit ($status: Caddy < 2.7 answers 502 instead of 413), never delivered"
  else
    fail "$name: a 2 MiB body answered $status, expected 413"
  fi
}

# --- Caddy -----------------------------------------------------------------
"$CADDY" version | head -1
export XDG_DATA_HOME="$work/caddy-data" XDG_CONFIG_HOME="$work/caddy-config"
# The Caddyfile imports console.caddy, which needs the console's login.
PODSYNC_CONSOLE_USER=anna PODSYNC_CONSOLE_PASSWORD_HASH=$("$CADDY" hash-password --plaintext "console-password-of-the-check")
export PODSYNC_CONSOLE_USER PODSYNC_CONSOLE_PASSWORD_HASH
caddy_version=$("$CADDY" version | sed -E 's/^v?([0-9]+)\.([0-9]+).*/\1 \2/')
read -r caddy_major caddy_minor <<< "$caddy_version"
# The admin API on a loopback port of its own; no trust-store installation.
printf '{\n\tadmin 127.0.0.1:12019\n\tskip_install_trust\n}\n' > "$work/Caddyfile"
cat deploy/proxy/Caddyfile >> "$work/Caddyfile"
# basic_auth is named basicauth before Caddy 2.8 (Debian 12 has 2.6).
if [ "$caddy_major" -eq 2 ] && [ "$caddy_minor" -lt 8 ]; then
  sed 's/\bbasic_auth\b/basicauth/' deploy/proxy/console.caddy > "$work/console.caddy"
else
  cp deploy/proxy/console.caddy "$work/console.caddy"
fi
PODSYNC_DOMAIN="localhost:$CADDY_PORT" PODSYNC_UPSTREAM="127.0.0.1:$UPSTREAM_PORT" \
  "$CADDY" validate --config "$work/Caddyfile" --adapter caddyfile >/dev/null 2>&1 || fail "caddy validate"
pass "caddy validate"
PODSYNC_DOMAIN="localhost:$CADDY_PORT" PODSYNC_UPSTREAM="127.0.0.1:$UPSTREAM_PORT" \
  "$CADDY" run --config "$work/Caddyfile" --adapter caddyfile > "$work/caddy.log" 2>&1 &
pids+=($!)
wait_port "$UPSTREAM_PORT"
wait_port "$CADDY_PORT"
if [ "$caddy_major" -eq 2 ] && [ "$caddy_minor" -lt 7 ]; then caddy_age=old-caddy; else caddy_age=current; fi
check_proxy caddy "https://localhost:$CADDY_PORT" "$caddy_age"
console_status=$(curl -sk -o /dev/null -w '%{http_code}' "https://localhost:$CADDY_PORT/console")
[ "$console_status" = 401 ] || fail "caddy: /console without a login answered $console_status, expected 401"
console_status=$(curl -sk -o /dev/null -w '%{http_code}' -u anna:console-password-of-the-check "https://localhost:$CADDY_PORT/console")
[ "$console_status" != 401 ] && [ "$console_status" != 404 ] || fail "caddy: /console with the login answered $console_status"
pass "caddy: /console asks for Caddy's login, and is forwarded with it"

# --- nginx -----------------------------------------------------------------
"$NGINX" -v 2>&1
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=podsync.example.com \
  -keyout "$work/privkey.pem" -out "$work/fullchain.pem" 2>/dev/null
mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
sed -e "s|/etc/letsencrypt/live/podsync.example.com|$work|" \
    -e "s|listen 443 ssl;|listen 127.0.0.1:$NGINX_HTTPS_PORT ssl;|" \
    -e "s|listen 80;|listen 127.0.0.1:$NGINX_HTTP_PORT;|" \
    -e '/listen \[::\]/d' \
    -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$UPSTREAM_PORT;|" \
    deploy/proxy/nginx.conf > "$work/nginx/podsync.conf"
cat > "$work/nginx/nginx.conf" <<EOF
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events {}
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp/body;
  proxy_temp_path $work/nginx/tmp/proxy;
  fastcgi_temp_path $work/nginx/tmp/fastcgi;
  uwsgi_temp_path $work/nginx/tmp/uwsgi;
  scgi_temp_path $work/nginx/tmp/scgi;
  include $work/nginx/podsync.conf;
}
EOF
"$NGINX" -t -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>&1 | tail -1
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
wait_port "$NGINX_HTTPS_PORT"
check_proxy nginx "https://127.0.0.1:$NGINX_HTTPS_PORT"
location=$(curl -s -o /dev/null -w '%{redirect_url}' -H 'Host: podsync.example.com' "http://127.0.0.1:$NGINX_HTTP_PORT/webhooks/pod")
[ "$location" = "https://podsync.example.com/webhooks/pod" ] || fail "nginx: plain HTTP redirected to '$location'"
pass "nginx: plain HTTP redirected to https://podsync.example.com/webhooks/pod"

echo "all proxy checks passed"
