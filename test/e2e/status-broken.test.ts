/**
 * `podsync status` says what is broken, not only counts (#18): a store refusing its credentials
 * (with the answer and what to check), a mapping file that failed to reload (and since when, with
 * its first issues), as a seller sees them with a daemon running against the simulators; /readyz
 * lists the failing store.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited, freePort, podsync, spawnPodsync, waitForHttp } from "../support/cli.js"
import { type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.close())

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
    const config = writeDaemonConfig(stack, port, { name: "broken" })
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
})
