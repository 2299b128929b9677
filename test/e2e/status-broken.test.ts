/**
 * `podsync status` says what is broken, not only counts (#18): a store refusing its credentials
 * (with the answer and what to check), a mapping file that failed to reload (and since when, with
 * its first issues), the POD budget paused by a 429, a store that cannot be reached, as a seller
 * sees them with a daemon running against the simulators; /readyz lists the failing store.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited, freePort, podsync, spawnPodsync, waitForHttp } from "../support/cli.js"
import { migratedDataFolder } from "../support/databaseTemplate.js"
import { type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"
import { simAdmin } from "../support/simAdmin.js"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.close())

/**
 * A test's daemon config, on a data folder of its own (a copy of a migrated one): what a daemon leaves
 * in its database (the POD budget paused by a 429) is not the next test's daemon's.
 */
const ownDaemonConfig = async (port: number, name: string) => {
  const config = writeDaemonConfig(stack, port, { name })
  const shared = `dataDir: ${path.join(stack.dir, "data")}\n`
  const own = path.join(stack.dir, name, "data")
  const text = fs.readFileSync(config, "utf8")
  if (!text.includes(shared)) throw new Error(`${config} has no line ${shared}`)
  fs.writeFileSync(config, text.replace(shared, `dataDir: ${own}\n`))
  migratedDataFolder(own)
  return config
}

const eventually = async <A>(what: string, read: () => Promise<A>, done: (a: A) => boolean, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe("podsync status with a daemon running", () => {
  it("names a store refusing its token and a mapping file that failed to reload, and /readyz lists the store", async () => {
    const port = await freePort()
    const config = await ownDaemonConfig(port, "broken")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace("shpat_sim_token", "shpat_revoked"))
    const daemon = spawnPodsync(["start", "--config", config])
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`)
      const status = await eventually(
        "the refusal in /status",
        async () => (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { refused?: ReadonlyArray<unknown> },
        (s) => (s.refused ?? []).length > 0
      )
      expect(status.refused).toEqual([expect.objectContaining({ dependency: "store:demo-shopify", answer: "HTTP 401" })])

      // The file breaks after it loaded: the daemon keeps the rows it had and says so.
      const good = fs.readFileSync(stack.mappingFile, "utf8")
      fs.writeFileSync(stack.mappingFile, `${good.trimEnd()}\n,BROKEN-SKU,some-variant,12345,https://cdn.example.com/x.png,,,,,,,\n`)
      const brokenLine = good.trimEnd().split("\n").length + 1
      try {
        await eventually(
          "the mapping file in /status",
          async () => (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { mappingFiles?: ReadonlyArray<unknown> },
          (s) => (s.mappingFiles ?? []).length > 0
        )
        const result = await podsync(["status", "--config", config])
        expect(result.code).toBe(0)
        expect(result.stdout).toMatch(
          /^CREDENTIALS REFUSED: store demo-shopify since \S+ \(\d+[smhd][^;]*; HTTP 401 on POST \S+graphql\.json\): check the store's access token or API keys, then restart podsync$/m
        )
        expect(result.stdout).toMatch(
          new RegExp(
            `^MAPPING FILE: ${
              stack.mappingFile.replaceAll(".", "\\.")
            } \\(store demo-shopify\\) has 1 issue\\(s\\) since \\S+ \\([^)]+\\): the previous \\d+ rows stay loaded until it is fixed$`,
            "m"
          )
        )
        expect(result.stdout).toContain(
          `  ${stack.mappingFile}:${brokenLine}: pod_variant_id: give exactly one of pod_variant_id and pod_legacy_id, not both`
        )
        expect(result.stdout).not.toContain("shpat_revoked")

        const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
        expect(ready.status).toBe(200)
        expect(await ready.json()).toMatchObject({
          status: "ready",
          stores: [{ store: "demo-shopify", why: "credentials refused", message: "HTTP 401" }]
        })

        // Fixed: the line goes.
        fs.writeFileSync(stack.mappingFile, good)
        await eventually(
          "the mapping file to load again",
          async () => (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { mappingFiles?: ReadonlyArray<unknown> },
          (s) => (s.mappingFiles ?? []).length === 0
        )
      } finally {
        fs.writeFileSync(stack.mappingFile, good)
      }
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
    }
  }, 90_000)

  it("says the POD budget is paused after a 429 and until when, and names a store it cannot reach", async () => {
    const port = await freePort()
    const nothingThere = await freePort()
    const config = await ownDaemonConfig(port, "paused")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace(stack.shopify.url, `http://127.0.0.1:${nothingThere}`))
    // The POD service answers every request 429 with a 30 s Retry-After (its real block is 60 s): the
    // daemon's first request (the catalog, at start) pauses the credential's budget.
    await simAdmin(stack.pod.url, "POST", "faults", { kind: "rateLimit429", retryAfterSeconds: 30 })
    const daemon = spawnPodsync(["start", "--config", config])
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`)
      await eventually(
        "the pause and the unreachable store in /status",
        async () =>
          (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as {
            budget?: { pausedUntil: string | null } | null
            unreachable?: ReadonlyArray<{ dependency: string }>
          },
        (s) => (s.budget?.pausedUntil ?? null) !== null && (s.unreachable ?? []).some((u) => u.dependency === "store:demo-shopify")
      )
      const result = await podsync(["status", "--config", config])
      expect(result.code).toBe(0)
      const paused = /^PAUSED: POD requests paused after a 429 until (\S+) \(the service's block; podsync resumes by itself\)$/m.exec(
        result.stdout
      )
      expect(paused, result.stdout).not.toBeNull()
      // Until the Retry-After it was given (and a second of jitter at most), still ahead.
      const until = Date.parse(paused![1]!)
      expect(until).toBeGreaterThan(Date.now() - 1_000)
      expect(until).toBeLessThanOrEqual(Date.now() + 31_000)
      expect(result.stdout).toContain(`  paused after a 429 until ${paused![1]}`)
      // Since when, how often, and why: nothing takes connections at the store's address.
      expect(result.stdout).toMatch(
        new RegExp(
          `^UNREACHABLE: store demo-shopify since \\S+ \\(\\d+[smhd][^,]*, \\d+ failed attempts?(, \\d+ orders waiting)?\\): connection refused at http://127\\.0\\.0\\.1:${nothingThere}$`,
          "m"
        )
      )
      // The POD service answers (429 is pacing, not an outage): it is not said unreachable.
      expect(result.stdout).not.toMatch(/^UNREACHABLE: the POD service\b/m)
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
      await simAdmin(stack.pod.url, "DELETE", "faults")
    }
  }, 60_000)

  it("names the POD service it cannot reach, and why in words: connection refused at its address", async () => {
    const port = await freePort()
    const nothingThere = await freePort()
    const config = await ownDaemonConfig(port, "no-pod")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace(stack.pod.url, `http://127.0.0.1:${nothingThere}`))
    const daemon = spawnPodsync(["start", "--config", config])
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`)
      await eventually(
        "the POD service unreachable in /status",
        async () =>
          (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { unreachable?: ReadonlyArray<{ dependency: string }> },
        (s) => (s.unreachable ?? []).some((u) => u.dependency === "pod")
      )
      const result = await podsync(["status", "--config", config])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(
        new RegExp(
          `^UNREACHABLE: the POD service since \\S+ \\(\\d+[smhd][^,]*, \\d+ failed attempts?(, \\d+ orders waiting)?\\): connection refused at http://127\\.0\\.0\\.1:${nothingThere}$`,
          "m"
        )
      )
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
    }
  }, 60_000)
})
