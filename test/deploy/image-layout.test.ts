import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited, freePort, tempDir, waitForHttp } from "../support/cli.js"
import { deployConfigText, dockerfile, exampleMappingsDir, filledSecrets, repoRoot } from "./deployFiles.js"
import { inRootfs, replayStage, runtimeMetadata, type StageReplay } from "./imageLayout.js"
import { containerEnv, mountConfig, runHealthcheck, runPodsync, startPodsync } from "./imageRun.js"

/**
 * Docker does not run here, so the runtime stage of deploy/Dockerfile is built
 * by hand: its COPY instructions applied to a folder (the build stage's /app is
 * this repository, whose `npm ci` compiled and bundled dist/ the same way and
 * installed the two packages the stage copies), then the daemon started from
 * there, with no other package to fall back on.
 * deploy/verify-image.sh goes further (build stage too, Node 24, PostgreSQL,
 * two replicas, the image's uid).
 */

const file = dockerfile()
const metadata = runtimeMetadata(file, "runtime")
// The keys of the Kubernetes Secret example, each with a value of its own, so
// that a leak into the output is seen.
const secrets = filledSecrets()

let dir: string
let image: StageReplay

beforeAll(async () => {
  dir = tempDir("image")
  const buildStage = path.join(dir, "build-stage")
  fs.mkdirSync(buildStage)
  fs.symlinkSync(repoRoot, path.join(buildStage, "app"))
  image = await replayStage(file, {
    stage: "runtime",
    rootfs: path.join(dir, "rootfs"),
    context: repoRoot,
    stages: { build: buildStage },
    offline: true
  })
  // config/podsync.example.yaml, the one configuration of every deployment, and its mapping files.
  mountConfig(image.rootfs, deployConfigText(), exampleMappingsDir)
}, 300_000)

afterAll(async () => {
  if (dir) await fs.promises.rm(dir, { recursive: true, force: true })
}, 120_000)

const app = () => inRootfs(image.rootfs, image.workdir)

describe("the runtime image, built by hand from deploy/Dockerfile", () => {
  it("holds the bundled CLI and the two packages it reads from node_modules only", () => {
    expect(image.workdir).toBe("/app")
    expect(fs.readdirSync(app()).sort()).toEqual(["bin", "dist", "node_modules", "package.json"])
    expect(fs.readdirSync(path.join(app(), "dist"))).toEqual(["podsync.js"])
    const modules = path.join(app(), "node_modules")
    // effect, kysely, pg, yaml, node-cron and the rest are inside the bundle: every test below runs without them.
    expect(fs.readdirSync(modules).sort()).toEqual(["@electric-sql", "htmx.org"])
    expect(fs.readdirSync(path.join(modules, "@electric-sql"))).toEqual(["pglite"])
    const typescriptFiles = fs.readdirSync(path.join(app(), "dist"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    expect(typescriptFiles).toEqual([])
  })

  it("has every migration inside the bundle: `podsync migrate` applies each to a fresh embedded database", async () => {
    const { DATABASE_URL: _postgres, ...rest } = secrets
    const result = await runPodsync(image, ["migrate"], containerEnv(image, rest))
    expect(result.code, result.stderr).toBe(0)
    const names = fs.readdirSync(path.join(repoRoot, "migrations"))
      .filter((f) => f.endsWith(".ts") && f !== "index.ts")
      .map((f) => f.replace(/\.ts$/, ""))
    expect(names).toContain("2026-11-21T00-00-01_initial")
    expect(result.stdout.trim()).toBe(`Applied: ${names.sort().join(", ")}`)
  }, 60_000)

  it("runs no command but the user and folder setup (nothing is installed in the runtime stage)", () => {
    expect(image.ran).toEqual([])
    expect(new Set(image.skipped.map((c) => c[0]))).toEqual(new Set(["groupadd", "useradd", "mkdir", "chown"]))
  })

  it("`podsync check` accepts the deployment config with the secrets from the environment", async () => {
    // The production database and services cannot be reached from here: not verified, which --unverified-ok (the systemd unit's) lets pass.
    const result = await runPodsync(image, ["check", "--unverified-ok"], containerEnv(image, secrets))
    expect(result.stderr).not.toMatch(/error|unexpected/i)
    expect(result.stdout).toContain("POD and stores: NOT VERIFIED: the database that holds the API budgets is not reachable")
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      "is valid. Stores: acme-shopify (shopify), acme-woo (woocommerce), acme-etsy (etsy), acme-feed (jsonfeed). Database: PostgreSQL."
    )
    // PODSYNC_CONFIG from the image's ENV points at the mounted file.
    expect(result.stdout).toContain(inRootfs(image.rootfs, "/etc/podsync/podsync.yaml"))
    for (const [name, value] of Object.entries(secrets)) {
      if (value.startsWith("value-of-")) expect(result.stdout, name).not.toContain(value)
    }
  })

  it("`podsync check` names every secret that is missing", async () => {
    const result = await runPodsync(image, ["check"], containerEnv(image, {}))
    expect(result.code).toBe(1)
    for (
      const name of [
        "POD_BASE_URL",
        "POD_CLIENT_KEY",
        "POD_CLIENT_SECRET",
        "POD_WEBHOOK_URL",
        "ACME_POD_STORE_ID",
        "ACME_WOO_URL",
        "ALERTS_SLACK_URL",
        "PODSYNC_PUBLIC_URL"
      ]
    ) {
      expect(result.stderr).toContain(`environment variable ${name} is not set`)
    }
  })

  it("starts as ENTRYPOINT + CMD, passes the HEALTHCHECK, gets ready, and stops cleanly on SIGTERM", async () => {
    expect(metadata.entrypoint).toBe('["node", "bin/podsync.js"]')
    expect(metadata.cmd).toBe('["start"]')
    const healthcheck = metadata.healthcheck
    if (healthcheck === undefined) throw new Error("no HEALTHCHECK")
    const port = await freePort()
    const { DATABASE_URL: _postgres, ...rest } = secrets
    // Without DATABASE_URL: the embedded database, in the data volume.
    const env = containerEnv(image, { ...rest, PODSYNC_HOST: "127.0.0.1", PODSYNC_PORT: String(port) })
    expect(await runHealthcheck(healthcheck, env)).toBe(1) // nothing listens yet

    const daemon = startPodsync(image, env)
    try {
      const ready = await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000)
      // A store the image cannot reach is listed (`stores`), and does not make it unready.
      expect(await ready.json()).toMatchObject({ status: "ready", ready: true, database: true })
      expect(await runHealthcheck(healthcheck, env)).toBe(0)
      expect(fs.readdirSync(inRootfs(image.rootfs, "/var/lib/podsync/data")).length).toBeGreaterThan(0)
    } finally {
      daemon.kill("SIGTERM")
    }
    expect(await exited(daemon)).toEqual({ code: 0, signal: null })
    const logs = daemon.output().trim().split("\n").map((line) => JSON.parse(line) as { message: unknown })
    expect(logs.map((l) => l.message)).toEqual(expect.arrayContaining(["podsync started", "podsync stopped"]))
    expect(await runHealthcheck(healthcheck, env)).toBe(1)
  }, 90_000)
})
