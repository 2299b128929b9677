import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { compose, configPlaceholders, deployPath, dockerfile, envFile, repoRoot } from "./deployFiles.js"
import { healthcheck } from "./dockerfile.js"
import { runtimeMetadata } from "./imageLayout.js"

const file = compose()
const podsync = file.services["podsync"]
const postgres = file.services["postgres"]
const caddy = file.services["caddy"]
if (!podsync || !postgres || !caddy) throw new Error("docker-compose.yml needs the services podsync, postgres and caddy")

/** "source:target[:mode]" of a short-syntax volume, found by its target. */
const mount = (target: string) => {
  const found = (podsync.volumes ?? []).map((v) => v.split(":")).find((parts) => parts[1] === target)
  return found === undefined ? undefined : { source: found[0] ?? "", mode: found[2] }
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

  it("mounts the config and the mappings read-only where PODSYNC_CONFIG and the config look", () => {
    expect(podsync.environment?.["PODSYNC_CONFIG"]).toBe("/etc/podsync/podsync.yaml")
    const config = mount("/etc/podsync/podsync.yaml")
    const mappings = mount("/etc/podsync/mappings")
    expect(config?.mode).toBe("ro")
    expect(mappings?.mode).toBe("ro")
    expect(fs.statSync(deployPath(config?.source ?? "")).isFile()).toBe(true)
    expect(fs.readdirSync(deployPath(mappings?.source ?? ""))).toContain("acme-shopify.csv")
  })

  it("provides every secret the config requires, from .env", () => {
    const provided = new Set([...Object.keys(envFile(".env.example")), ...Object.keys(podsync.environment ?? {})])
    for (const name of configPlaceholders().required) expect(provided, name).toContain(name)
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

  it("refuses to start Caddy with an empty PODSYNC_DOMAIN, saying why, and runs it with one", () => {
    const [shell, flag, script] = caddy.entrypoint ?? []
    expect([shell, flag]).toEqual(["/bin/sh", "-c"])
    // Compose writes a literal $ as $$; the container's shell sees one.
    const run = (domain: string) => {
      const bin = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-caddy-"))
      fs.writeFileSync(path.join(bin, "caddy"), '#!/bin/sh\necho "caddy $*"\n', { mode: 0o755 })
      return spawnSync("sh", ["-c", (script ?? "").replaceAll("$$", "$")], {
        encoding: "utf8",
        env: { PATH: `${bin}:/usr/bin:/bin`, PODSYNC_DOMAIN: domain }
      })
    }
    const empty = run("")
    expect(empty.status).toBe(1)
    expect(empty.stderr).toContain("PODSYNC_DOMAIN is empty: set it in deploy/.env")
    const named = run("podsync.example.net")
    expect(named.status).toBe(0)
    expect(named.stdout.trim()).toBe("caddy run --config /etc/caddy/Caddyfile --adapter caddyfile")
  })
})
