/**
 * `podsync check` as a seller runs it before going live (#18): against the POD and Shopify
 * simulators over real HTTP, it verifies every credential with one read each, says what it could
 * not verify, and exits 0 (all verified), 1 (something will not work) or 3 (not verified).
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { freePort, type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"
import { writeStoreDaemonConfig } from "../support/stores.js"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.close())

/** The pipeline tests' config, with `edit` applied to its text. */
const config = (name: string, edit: (text: string) => string = (text) => text) => {
  const file = writeDaemonConfig(stack, 0, { name })
  fs.writeFileSync(file, edit(fs.readFileSync(file, "utf8")))
  return file
}

describe("podsync check verifies the credentials", () => {
  it("says the POD service and the store accept them, and exits 0", async () => {
    const result = await podsync(["check", "--config", config("good")])
    expect(result.stdout).toMatch(/Catalog: \d+ mapped POD variant\(s\) checked against .* OK/)
    expect(result.stdout).toContain("Store demo-shopify (shopify): credentials accepted")
    expect(result.stdout).not.toContain("NOT VERIFIED")
    expect(result.code).toBe(0)
  }, 60_000)

  it("names a store token the store refuses, where it is configured, and exits 1", async () => {
    const result = await podsync(["check", "--config", config("bad-token", (t) => t.replace("shpat_sim_token", "shpat_wrong"))])
    expect(result.stdout).toContain(
      "Store demo-shopify (shopify): refused the credentials (HTTP 401): check stores[0].shopify.accessToken (and stores[0].shopify.shop)"
    )
    expect(result.stderr).toContain("problems: 1 with the POD service or the stores")
    expect(result.stdout + result.stderr).not.toContain("shpat_wrong")
    expect(result.code).toBe(1)
  }, 60_000)

  it("says the POD credentials are wrong, not the mapping files, and exits 1", async () => {
    const result = await podsync(["check", "--config", config("bad-pod", (t) => t.replace("sim-client-secret", "not-the-secret"))])
    expect(result.stderr).toContain("the POD service refuses podsync's credentials")
    expect(result.stderr).not.toContain("mapping files")
    expect(result.code).toBe(1)
  }, 60_000)

  it("says what it could not verify when a service does not answer, and exits 3 (0 with --unverified-ok)", async () => {
    const unreachable = config("pod-down", (t) => t.replace(stack.pod.url, "http://127.0.0.1:9"))
    const result = await podsync(["check", "--config", unreachable])
    expect(result.stdout).toContain("POD: NOT VERIFIED: the POD API at http://127.0.0.1:9 did not answer")
    expect(result.stdout).toContain("Store demo-shopify (shopify): credentials accepted")
    expect(result.stderr).toContain("podsync: not verified: the POD API at http://127.0.0.1:9 (did not answer)")
    expect(result.code).toBe(3)
    const tolerant = await podsync(["check", "--config", unreachable, "--unverified-ok"])
    expect(tolerant.stdout).toContain("POD: NOT VERIFIED")
    expect(tolerant.code).toBe(0)
  }, 60_000)

  it("says a store's address refuses connections, instead of waiting out the connector's retries", async () => {
    // The WooCommerce connector retries a read that could not connect: the check says why at once.
    const closedPort = await freePort()
    const section = { url: `http://127.0.0.1:${closedPort}`, consumerKey: "ck_sim", consumerSecret: "cs_sim", webhookSecret: "woo-secret" }
    const closed = writeStoreDaemonConfig(
      stack,
      0,
      { key: "acme-woo", platform: "woocommerce", podStoreId: "store-woo", section },
      {},
      "woo-down"
    )
    const result = await podsync(["check", "--config", closed])
    expect(result.stdout).toContain(
      `Store acme-woo (woocommerce): NOT VERIFIED: did not answer (connection refused at http://127.0.0.1:${closedPort}): its credentials are not checked`
    )
    expect(result.code).toBe(3)
  }, 60_000)
})
