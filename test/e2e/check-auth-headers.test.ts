// `podsync check` as a seller runs it, against a POD simulator that takes the credentials under one
// published header pair only: the refused pair is followed by the other one, and the output says
// exactly which `pod.authHeaders` to set, or that the credentials themselves are wrong.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { podsync, tempDir } from "../support/cli.js"
import { simAdmin } from "../support/simAdmin.js"

const dir = tempDir("check-auth")
let sim: RunningPodSimulator

beforeAll(async () => {
  // Only the catalog/order groups' pair: podsync's default (X-Gearment-Client-*) is refused.
  sim = await startPodSimulator({ rateLimit: false, authHeaders: { key: "X-API-Key", secret: "X-API-Secret" } })
})
afterAll(async () => {
  await sim.close()
  fs.rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => simAdmin(sim.url, "POST", "reset"))

/** A one-store config with the demo mapping file (its variants are in the simulator's catalog). */
const writeConfig = (name: string, pod: ReadonlyArray<string>) => {
  const file = path.join(dir, `${name}.yaml`)
  fs.writeFileSync(
    file,
    [
      `dataDir: ${path.join(dir, "data")}`,
      "pod:",
      `  baseUrl: ${sim.url}`,
      ...pod.map((line) => `  ${line}`),
      "stores:",
      "  - key: acme-shopify",
      "    platform: shopify",
      "    podStoreId: store-acme",
      "    shopify: { shop: acme.myshopify.com, accessToken: token, webhookSecret: secret }",
      `    mappings: ${path.resolve("config/mappings/demo-shopify.csv")}`
    ].join("\n")
  )
  return file
}

const SIM_CREDENTIALS = ["clientKey: sim-client-key", "clientSecret: sim-client-secret"]

describe("podsync check finds the header pair the POD service takes", () => {
  it("says to set X-API-Key/X-API-Secret when the default pair is refused and that one works", async () => {
    const config = writeConfig("default-headers", SIM_CREDENTIALS)
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(
      `the POD API at ${sim.url} refused the credentials sent as X-Gearment-Client-Key/X-Gearment-Client-Secret (401) but accepts them as X-API-Key/X-API-Secret`
    )
    expect(result.stdout).toContain("  pod.authHeaders: { key: X-API-Key, secret: X-API-Secret }")
    // The catalog check itself still ran, with the pair that works.
    expect(result.stdout).toMatch(/Catalog: \d+ mapped POD variant\(s\) checked against .* OK/)
    expect(result.stderr).toContain(`set pod.authHeaders: { key: X-API-Key, secret: X-API-Secret } in ${config}`)
    expect(result.stderr).not.toContain("sim-client-secret")
    expect(result.code).toBe(1)
  })

  it("passes once the suggested pair is configured", async () => {
    const config = writeConfig("x-api-headers", [...SIM_CREDENTIALS, "authHeaders: { key: X-API-Key, secret: X-API-Secret }"])
    // The store here is a real Shopify address this machine cannot reach: not verified, which --unverified-ok lets pass.
    const result = await podsync(["check", "--config", config, "--unverified-ok"])
    expect(result.stdout).toMatch(/Catalog: \d+ mapped POD variant\(s\) checked against .* OK/)
    expect(result.stdout).toContain("Store acme-shopify (shopify): NOT VERIFIED: did not answer")
    // No refusal said (the simulator's random port may hold the digits 401: look for the refusal's words).
    expect(result.stdout).not.toMatch(/\(401\)|HTTP 401|refused/)
    expect(result.code).toBe(0)
  })

  it("suggests the Gearment pair back when the service (switched by its admin hook) takes only that one", async () => {
    await simAdmin(sim.url, "POST", "auth-headers", { accept: "gearment" })
    const config = writeConfig("x-api-refused", [...SIM_CREDENTIALS, "authHeaders: { key: X-API-Key, secret: X-API-Secret }"])
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain("  pod.authHeaders: { key: X-Gearment-Client-Key, secret: X-Gearment-Client-Secret }")
    expect(result.code).toBe(1)
  })

  it("says the credentials are wrong when neither pair is accepted", async () => {
    const config = writeConfig("wrong-secret", ["clientKey: sim-client-key", "clientSecret: not-the-secret"])
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(
      "refused the credentials (401) under every published header pair (X-Gearment-Client-Key/X-Gearment-Client-Secret, X-API-Key/X-API-Secret): the credentials themselves are wrong"
    )
    expect(result.stdout).not.toContain("pod.authHeaders:")
    expect(result.stderr).toContain("the POD service refuses podsync's credentials: fix pod.clientKey and pod.clientSecret")
    expect(result.stderr).not.toContain("not-the-secret")
    expect(result.code).toBe(1)
  })
})
