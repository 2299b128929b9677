import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { compose, configPlaceholders, deployConfigText, deployPath, dockerfile, envFile, readDeploy, repoRoot } from "./deployFiles.js"
import { healthcheck } from "./dockerfile.js"
import { runtimeMetadata } from "./imageLayout.js"

const file = compose()
const podsync = file.services["podsync"]
const postgres = file.services["postgres"]
const caddy = file.services["caddy"]
if (!podsync || !postgres || !caddy) throw new Error("docker-compose.yml needs the services podsync, postgres and caddy")

/** A volume found by its target: "source:target[:mode]", or the long syntax (read_only as mode "ro"). */
const mount = (target: string) => {
  for (const volume of podsync.volumes ?? []) {
    if (typeof volume === "string") {
      const [source = "", at, mode] = volume.split(":")
      if (at === target) return { source, mode }
    } else if (volume.target === target) {
      return { source: volume.source, mode: volume.read_only === true ? "ro" : undefined, bind: volume.bind }
    }
  }
  return undefined
}

describe("deploy/docker-compose.yml", () => {
  it("builds podsync from deploy/Dockerfile with the repository as context", () => {
    expect(podsync.build).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" })
    const context = path.resolve(deployPath(), podsync.build?.context ?? "")
    expect(context).toBe(repoRoot)
    expect(fs.existsSync(path.join(context, podsync.build?.dockerfile ?? ""))).toBe(true)
  })

  it("starts podsync once PostgreSQL answers, and restarts both", () => {
    expect(podsync.depends_on).toEqual({ postgres: { condition: "service_healthy" } })
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready")
    expect(postgres.image).toMatch(/^postgres:\d+/)
    expect(podsync.restart).toBe("unless-stopped")
    expect(postgres.restart).toBe("unless-stopped")
  })

  it("points podsync at the compose PostgreSQL with the password from .env", () => {
    const url = podsync.environment?.["DATABASE_URL"] ?? ""
    expect(url).toMatch(/^postgres:\/\/podsync:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/podsync$/)
    expect(postgres.environment).toMatchObject({ POSTGRES_DB: "podsync", POSTGRES_USER: "podsync" })
    expect(postgres.environment?.["POSTGRES_PASSWORD"]).toMatch(/^\$\{POSTGRES_PASSWORD:\?/)
  })

  it("keeps the database, the podsync data and the reports in named volumes", () => {
    const named = Object.keys(file.volumes)
    expect(postgres.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"])
    expect(mount("/var/lib/podsync/data")).toEqual({ source: "podsync-data", mode: undefined })
    expect(mount("/var/lib/podsync/reports")).toEqual({ source: "podsync-reports", mode: undefined })
    expect(named).toEqual(expect.arrayContaining(["postgres-data", "podsync-data", "podsync-reports"]))
  })

  it("mounts the seller's copy of config/podsync.example.yaml and config/mappings read-only where the image looks", () => {
    expect(podsync.environment?.["PODSYNC_CONFIG"]).toBe("/etc/podsync/podsync.yaml")
    const config = mount("/etc/podsync/podsync.yaml")
    const mappings = mount("/etc/podsync/mappings")
    expect(config).toEqual({ source: "../config/podsync.yaml", mode: "ro", bind: { create_host_path: false } })
    expect(mappings?.mode).toBe("ro")
    // The file a seller copies the example to (README), next to the example; compose refuses to start without it.
    expect(path.resolve(deployPath(), config?.source ?? "")).toBe(path.join(repoRoot, "config", "podsync.yaml"))
    expect(fs.existsSync(path.join(repoRoot, "config", "podsync.example.yaml"))).toBe(true)
    expect(path.resolve(deployPath(), mappings?.source ?? "")).toBe(path.join(repoRoot, "config", "mappings"))
    const named = [...deployConfigText().matchAll(/\/([a-z0-9-]+\.csv)/g)].map((m) => m[1])
    expect(named).toEqual(["acme-shopify.csv", "acme-woo.csv", "acme-etsy.csv", "acme-feed.csv"])
    for (const csv of named) expect(fs.readdirSync(path.resolve(deployPath(), mappings?.source ?? ""))).toContain(csv)
    expect(fs.existsSync(deployPath("config"))).toBe(false)
  })

  it("provides every secret the config requires, from .env, with no value filled in for the seller", () => {
    const example = envFile(".env.example")
    const provided = new Set([...Object.keys(example), ...Object.keys(podsync.environment ?? {})])
    for (const name of configPlaceholders().required) expect(provided, name).toContain(name)
    expect(Object.entries(example).filter(([, value]) => value !== "")).toEqual([])
    expect(podsync.env_file).toEqual([".env"])
    expect(fs.readFileSync(deployPath(".gitignore"), "utf8").split("\n")).toContain(".env")
  })

  it("publishes podsync on loopback only, behind the reverse proxy", () => {
    expect(podsync.ports).toEqual(["127.0.0.1:8080:8080"])
    expect(podsync.environment?.["PODSYNC_PORT"]).toBe("8080")
    expect(postgres.ports).toBeUndefined()
  })

  it("uses the image's HEALTHCHECK command, and stops gracefully", () => {
    const instruction = runtimeMetadata(dockerfile(), "runtime").healthcheck
    if (instruction === undefined) throw new Error("no HEALTHCHECK")
    expect(podsync.healthcheck?.test).toEqual(["CMD", ...(healthcheck(instruction).command ?? [])])
    expect(podsync.init).toBe(true)
    expect(podsync.stop_grace_period).toBe("30s")
  })

  it("runs podsync with a read-only root, no capabilities and /tmp in memory", () => {
    expect(podsync.read_only).toBe(true)
    expect(podsync.tmpfs).toEqual(["/tmp"])
    expect(podsync.cap_drop).toEqual(["ALL"])
  })

  it("offers Caddy for HTTPS under the https profile, forwarding to podsync", () => {
    expect(caddy.profiles).toEqual(["https"])
    expect(caddy.environment?.["PODSYNC_UPSTREAM"]).toBe("podsync:8080")
    expect(caddy.ports).toEqual(expect.arrayContaining(["80:80", "443:443"]))
    expect(caddy.volumes).toContain("./proxy/Caddyfile:/etc/caddy/Caddyfile:ro")
    expect(fs.existsSync(deployPath("proxy", "Caddyfile"))).toBe(true)
  })

  it("publishes the console through Caddy's login, podsync trusting the user header from Caddy's address alone", () => {
    // The Caddyfile imports console.caddy from its own folder: compose mounts it there.
    expect(caddy.volumes).toContain("./proxy/console.caddy:/etc/caddy/console.caddy:ro")
    expect(readDeploy("proxy", "Caddyfile")).toContain("\timport console.caddy\n")
    const address = (caddy.networks as Record<string, { ipv4_address?: string }> | undefined)?.["podsync"]?.ipv4_address
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/)
    expect(podsync.environment?.["PODSYNC_CONSOLE_PROXY_FROM"]).toBe(address)
    // Caddy's address is fixed inside the network's own subnet, which every service joins.
    const subnet = file.networks?.["podsync"]?.ipam?.config?.[0]?.subnet ?? ""
    expect(`${address?.split(".").slice(0, 3).join(".")}.0/24`).toBe(subnet)
    expect(podsync.networks).toEqual(["podsync"])
    expect(postgres.networks).toEqual(["podsync"])
    expect(caddy.environment).toMatchObject({
      PODSYNC_CONSOLE_USER: "${PODSYNC_CONSOLE_USER:-}",
      PODSYNC_CONSOLE_PASSWORD_HASH: "${PODSYNC_CONSOLE_PASSWORD_HASH:-}"
    })
  })

  it("refuses to start Caddy with an empty PODSYNC_DOMAIN or console login, saying why, and runs it with both", () => {
    const [shell, flag, script] = caddy.entrypoint ?? []
    expect([shell, flag]).toEqual(["/bin/sh", "-c"])
    // Compose writes a literal $ as $$; the container's shell sees one.
    const run = (domain: string) => {
      const bin = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-caddy-"))
      fs.writeFileSync(path.join(bin, "caddy"), '#!/bin/sh\necho "caddy $*"\n', { mode: 0o755 })
      return spawnSync("sh", ["-c", (script ?? "").replaceAll("$$", "$")], {
        encoding: "utf8",
        env: { PATH: `${bin}:/usr/bin:/bin`, PODSYNC_DOMAIN: domain, ...login }
      })
    }
    let login: Record<string, string> = { PODSYNC_CONSOLE_USER: "anna", PODSYNC_CONSOLE_PASSWORD_HASH: "$2a$14$bcrypthashofthepassword" }
    const empty = run("")
    expect(empty.status).toBe(1)
    expect(empty.stderr).toContain("PODSYNC_DOMAIN is empty: set it in deploy/.env")
    login = { PODSYNC_CONSOLE_USER: "anna" }
    const noLogin = run("podsync.example.net")
    expect(noLogin.status).toBe(1)
    expect(noLogin.stderr).toContain("PODSYNC_CONSOLE_PASSWORD_HASH is empty")
    login = { PODSYNC_CONSOLE_USER: "anna", PODSYNC_CONSOLE_PASSWORD_HASH: "$2a$14$bcrypthashofthepassword" }
    const named = run("podsync.example.net")
    expect(named.status).toBe(0)
    expect(named.stdout.trim()).toBe("caddy run --config /etc/caddy/Caddyfile --adapter caddyfile")
  })
})
