import { describe, expect, it } from "vitest"
import { readDeploy } from "./deployFiles.js"

/**
 * The reverse-proxy examples publish the webhooks over HTTPS. What podsync
 * relies on: only /webhooks/ (and /console behind the proxy's login) is forwarded, the path reaches it unchanged (the
 * POD signature covers the URL path), and bodies over 1 MiB stop at the proxy.
 */

const code = (text: string, comment: string) =>
  text.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith(comment))

describe("deploy/proxy/Caddyfile", () => {
  const lines = code(readDeploy("proxy", "Caddyfile"), "#")

  it("serves the configured domain (automatic HTTPS) and forwards /webhooks/* alone, path unchanged", () => {
    expect(lines[0]).toBe("{$PODSYNC_DOMAIN} {")
    expect(lines).toContain("handle /webhooks/* {")
    expect(lines).toContain("reverse_proxy {$PODSYNC_UPSTREAM:127.0.0.1:8080} {")
    expect(lines.join("\n")).not.toMatch(/handle_path|uri strip_prefix|rewrite/)
    expect(lines).toContain("respond 404")
  })

  it("refuses bodies over 1 MiB", () => {
    expect(lines).toContain("max_size 1MiB")
  })

  it("publishes the console by importing console.caddy (Caddy's login) before everything else gets 404", () => {
    expect(lines).toContain("import console.caddy")
    expect(lines.indexOf("import console.caddy")).toBeLessThan(lines.indexOf("respond 404"))
  })
})

describe("deploy/proxy/nginx.conf", () => {
  const lines = code(readDeploy("proxy", "nginx.conf"), "#")

  it("terminates TLS, redirects HTTP, and forwards /webhooks/ alone, path unchanged", () => {
    expect(lines).toContain("listen 443 ssl;")
    expect(lines).toContain("return 301 https://$host$request_uri;")
    expect(lines).toContain("location /webhooks/ {")
    // proxy_pass without a URI part passes the request path as it came.
    expect(lines.filter((l) => l.startsWith("proxy_pass"))).toEqual(["proxy_pass http://podsync;"])
    expect(lines).toContain("server 127.0.0.1:8080;")
    expect(lines).toContain("return 404;")
    expect(lines.join("\n")).not.toMatch(/\brewrite\b/)
  })

  it("refuses bodies over 1 MiB and never replays a webhook on its own", () => {
    expect(lines).toContain("client_max_body_size 1m;")
    expect(lines).toContain("proxy_next_upstream off;")
  })
})

describe("the console behind the proxies (deploy/proxy/console.caddy, console-nginx.conf)", () => {
  // Each proxy logs the person in, and alone sets the user header podsync trusts (replacing the client's).
  it.each(
    [
      ["console.caddy", "#", "handle /console* {", [
        "basic_auth {",
        "{$PODSYNC_CONSOLE_USER} {$PODSYNC_CONSOLE_PASSWORD_HASH}",
        "reverse_proxy {$PODSYNC_UPSTREAM:127.0.0.1:8080} {",
        "header_up X-Forwarded-User {http.auth.user.id}"
      ]],
      // nginx also keeps the Host the console checks forms against, and says the request came over https.
      ["console-nginx.conf", "#", "location /console {", [
        "auth_basic_user_file /etc/nginx/podsync-console.htpasswd;",
        "proxy_pass http://podsync;",
        "proxy_set_header Host $host;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "proxy_set_header X-Forwarded-User $remote_user;"
      ]]
    ] as const
  )("%s logs the person in and alone sets the user header", (file, comment, first, wanted) => {
    const lines = code(readDeploy("proxy", file), comment)
    expect(lines[0]).toBe(first)
    expect(lines).toEqual(expect.arrayContaining([...wanted]))
  })
})
