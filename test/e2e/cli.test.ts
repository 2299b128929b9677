import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { exampleConfig, exited, freePort, podsync, spawnPodsync, tempDir, waitForHttp } from "../support/cli.js"

const dir = tempDir("cli")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("podsync check", () => {
  it("prints OK for the shipped example", () => {
    const result = podsync(["check", "--config", "config/podsync.example.yaml"])
    expect(result.stdout).toMatch(/^OK: config\/podsync\.example\.yaml is valid/)
    expect(result.code).toBe(0)
  })

  it("finds the file through $PODSYNC_CONFIG", () => {
    const result = podsync(["check"], { PODSYNC_CONFIG: "config/demo.yaml" })
    expect(result.stdout).toMatch(/^OK: config\/demo\.yaml is valid/)
  })

  it("rejects a config with several mistakes, naming each by path, without a stack trace", () => {
    const file = path.join(dir, "bad.yaml")
    fs.writeFileSync(
      file,
      [
        "server:",
        "  port: eighty",
        "pod:",
        "  baseUrl: https://pod.example.com",
        "  clientKey: ${PODSYNC_TEST_MISSING_KEY}",
        "  clientSecret: x",
        "stores:",
        "  - key: bad-store",
        "    platform: magento",
        '    podStoreId: "2"',
        "    mappings: b.csv",
        "schedules:",
        "  pull: every five minutes"
      ].join("\n")
    )
    const result = podsync(["check", "--config", file])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain("pod.clientKey: environment variable PODSYNC_TEST_MISSING_KEY is not set")
    expect(result.stderr).toContain('server.port: expected a whole number, got "eighty"')
    expect(result.stderr).toContain('stores[0].platform: expected one of shopify, woocommerce, etsy, jsonfeed; got "magento"')
    expect(result.stderr).toContain('schedules.pull: invalid cron expression "every five minutes"')
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/)
    expect(result.stdout).not.toContain("OK")
  })

  it("says where it looked when the file is missing", () => {
    const result = podsync(["check", "--config", path.join(dir, "nope.yaml")])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/nope\.yaml.*file not found/s)
  })
})

describe("podsync start on the embedded database", () => {
  it("serves /healthz, refuses a second start, and stops cleanly on SIGTERM within 5 s", async () => {
    const port = await freePort()
    const config = exampleConfig(dir, port)
    const daemon = spawnPodsync(["start", "--config", config])
    try {
      const health = await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000)
      expect(await health.json()).toEqual({ status: "ok" })
      const ready = await waitForHttp(`http://127.0.0.1:${port}/readyz`)
      expect(await ready.json()).toMatchObject({ status: "ready" })

      const second = podsync(["start", "--config", config])
      expect(second.code).toBe(1)
      expect(second.stderr).toMatch(/in use by another podsync process \(pid \d+\)/)

      const status = podsync(["status", "--config", config])
      expect(status.code).toBe(0)
      expect(status.stdout).toContain("running daemon")

      const stoppedAt = Date.now()
      daemon.kill("SIGTERM")
      const exit = await exited(daemon)
      expect(Date.now() - stoppedAt).toBeLessThan(5_000)
      expect(exit.code).toBe(0)
      expect(daemon.output()).toContain('"message":"podsync stopped"')
      // The lock is released: a new start succeeds.
      expect(fs.existsSync(path.join(dir, "data", "podsync.lock"))).toBe(false)
    } finally {
      daemon.kill("SIGKILL")
    }
  }, 120_000)

  it("migrate applies the schema once and then reports it up to date", () => {
    const migrateDir = path.join(dir, "migrate")
    fs.mkdirSync(migrateDir)
    const config = exampleConfig(migrateDir, 0)
    const first = podsync(["migrate", "--config", config])
    expect(first.stdout).toMatch(/Applied: 2026-11-21T00-00-01_initial/)
    const again = podsync(["migrate", "--config", config])
    expect(again.stdout).toContain("The database is up to date.")
  }, 60_000)
})
