import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited, freePort, tempDir, waitForHttp } from "../support/cli.js"
import { deployConfigText, dockerfile, exampleMappingsDir, filledSecrets, repoRoot } from "./deployFiles.js"
import { inRootfs, replayStage, runtimeMetadata, type StageReplay } from "./imageLayout.js"
import { complete, containerEnv, mountConfig, type RunOptions, runHealthcheck, runPodsync, startPodsync } from "./imageRun.js"

/**
 * The one-off verification of deploy/Dockerfile without Docker (run by
 * deploy/verify-image.sh, not by `npm test`): both stages replayed from the
 * repository's files (a fresh full install and compile, then the production
 * install), and the result run
 *  - with the node binary of $PODSYNC_VERIFY_NODE (the image's Node 24), else this one;
 *  - as the image's uid/gid when run as root (setpriv), the image files owned by root;
 *  - as two replicas on one new PostgreSQL database created through
 *    $PODSYNC_VERIFY_DATABASE_URL (default: the local server), dropped afterwards;
 *  - and alone on the embedded database in the data volume.
 */

const file = dockerfile()
const metadata = runtimeMetadata(file, "runtime")
const [uid = 0, gid = 0] = (metadata.user ?? "").split(":").map(Number)
const asRoot = process.getuid?.() === 0
const options: RunOptions = {
  node: process.env.PODSYNC_VERIFY_NODE ?? process.execPath,
  ...(asRoot ? { wrapper: ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"] } : {})
}
const adminUrl = process.env.PODSYNC_VERIFY_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const secrets = filledSecrets()
if (metadata.healthcheck === undefined) throw new Error("deploy/Dockerfile: no HEALTHCHECK")
const healthcheckInstruction = metadata.healthcheck

let dir: string
let build: StageReplay
let image: StageReplay
const timings: Record<string, string> = {}
const run = promisify(execFile)

const timed = async <A>(label: string, run: () => Promise<A>): Promise<A> => {
  const start = performance.now()
  const result = await run()
  timings[label] = `${((performance.now() - start) / 1000).toFixed(1)} s`
  return result
}

const du = async (target: string) => (await run("du", ["-sh", target])).stdout.split("\t")[0] ?? "?"

beforeAll(async () => {
  dir = tempDir("image-full")
  fs.chmodSync(dir, 0o755)
  build = await timed(
    "build stage (npm ci, tsc)",
    () => replayStage(file, { stage: "build", rootfs: path.join(dir, "build"), context: repoRoot, stages: {}, offline: true })
  )
  image = await timed(
    "runtime stage (bundle, pglite, htmx)",
    () =>
      replayStage(file, {
        stage: "runtime",
        rootfs: path.join(dir, "runtime"),
        context: repoRoot,
        stages: { build: path.join(dir, "build") },
        offline: true
      })
  )
  mountConfig(image.rootfs, deployConfigText(), exampleMappingsDir)
  // Stands in for the Dockerfile's `chown -R podsync:podsync /var/lib/podsync`; the rest stays root's.
  if (asRoot) await run("chown", ["-R", `${uid}:${gid}`, inRootfs(image.rootfs, "/var/lib/podsync")])
})

afterAll(async () => {
  const app = inRootfs(image.rootfs, image.workdir)
  console.log([
    `node: ${(await run(options.node ?? process.execPath, ["--version"])).stdout.trim()}`,
    `user: ${asRoot ? `${uid}:${gid} (setpriv)` : `${process.getuid?.()} (not root: uid not switched)`}`,
    `image /app: ${await du(app)}, node_modules ${await du(path.join(app, "node_modules"))}, dist ${await du(path.join(app, "dist"))}`,
    `build stage node_modules: ${await du(path.join(build.rootfs, "app", "node_modules"))}`,
    ...Object.entries(timings).map(([label, time]) => `${label}: ${time}`)
  ].join("\n"))
  if (dir) await fs.promises.rm(dir, { recursive: true, force: true })
})

describe("deploy/Dockerfile replayed by hand, both stages", () => {
  it("bundles the CLI in the build stage, from the files the stage copies, and the runtime stage holds that bundle only", () => {
    const sources = fs.readdirSync(path.join(repoRoot, "migrations")).filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, ".js"))
    const compiled = fs.readdirSync(path.join(build.rootfs, "app", "dist", "migrations")).filter((f) => f.endsWith(".js"))
    expect(compiled.sort()).toEqual(sources.sort())
    expect(fs.readdirSync(inRootfs(image.rootfs, "/app/dist"))).toEqual(["podsync.js"])
  })

  it("`podsync check` accepts the deployment config", async () => {
    const result = await runPodsync(image, ["check", "--unverified-ok"], containerEnv(image, secrets), options)
    expect(result.stderr).not.toMatch(/error|unexpected/i)
    expect(result.stdout).toContain("Database: PostgreSQL.")
  })

  // Only root can switch to the image's uid; the script says so when it cannot.
  it.runIf(asRoot)("leaves the image files unwritable by the image's user", async () => {
    const attempt = await complete(options.wrapper?.[0] ?? "", [
      ...(options.wrapper?.slice(1) ?? []),
      options.node ?? process.execPath,
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(inRootfs(image.rootfs, "/app/written"))}, "x")`
    ], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } })
    expect(attempt.code).not.toBe(0)
    expect(attempt.stderr).toContain("EACCES")
  })

  it("runs two replicas on one new PostgreSQL: both migrate at once, get ready, pass the HEALTHCHECK, stop on SIGTERM", async () => {
    const database = `podsync_verify_${randomBytes(4).toString("hex")}`
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    await admin.query(`create database ${database}`)
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    try {
      const ports = [await freePort(), await freePort()]
      const envs = ports.map((port) =>
        containerEnv(image, { ...secrets, DATABASE_URL: url.toString(), PODSYNC_HOST: "127.0.0.1", PODSYNC_PORT: String(port) })
      )
      const replicas = envs.map((env) => startPodsync(image, env, options))
      try {
        for (const port of ports) {
          const ready = await waitForHttp(`http://127.0.0.1:${port}/readyz`, 120_000)
          // A store the image cannot reach is listed (`stores`), and does not make it unready.
          expect(await ready.json()).toMatchObject({ status: "ready", ready: true, database: true })
        }
        for (const env of envs) expect(await runHealthcheck(healthcheckInstruction, env, options)).toBe(0)
        const client = new pg.Client({ connectionString: url.toString() })
        await client.connect()
        const applied = await client.query<{ name: string }>("select name from kysely_migration order by name")
        await client.end()
        // index.ts lists the migrations (the bundle applies that list); it is not one.
        const files = fs.readdirSync(path.join(repoRoot, "migrations"))
        const sources = files.filter((f) => f.endsWith(".ts") && f !== "index.ts").map((f) => f.replace(/\.ts$/, ""))
        expect(applied.rows.map((r) => r.name)).toEqual(sources.sort())
      } finally {
        for (const replica of replicas) replica.kill("SIGTERM")
      }
      for (const replica of replicas) {
        expect(await exited(replica), replica.output()).toEqual({ code: 0, signal: null })
        expect(replica.output()).toContain("podsync stopped")
        for (const value of Object.values(secrets)) if (value.startsWith("value-of-")) expect(replica.output()).not.toContain(value)
      }
    } finally {
      await admin.query(`drop database if exists ${database} with (force)`)
      await admin.end()
    }
  })

  it("runs alone on the embedded database in the data volume", async () => {
    const { DATABASE_URL: _unset, ...rest } = secrets
    const port = await freePort()
    const env = containerEnv(image, { ...rest, PODSYNC_HOST: "127.0.0.1", PODSYNC_PORT: String(port) })
    const daemon = startPodsync(image, env, options)
    try {
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, 120_000)
      expect(await runHealthcheck(healthcheckInstruction, env, options)).toBe(0)
      const data = inRootfs(image.rootfs, "/var/lib/podsync/data")
      expect(fs.readdirSync(data).length).toBeGreaterThan(0)
      if (asRoot) expect(fs.statSync(path.join(data, fs.readdirSync(data)[0] ?? "")).uid).toBe(uid)
    } finally {
      daemon.kill("SIGTERM")
    }
    expect(await exited(daemon), daemon.output()).toEqual({ code: 0, signal: null })
    expect(await runHealthcheck(healthcheckInstruction, env, options)).toBe(1)
  })
})
