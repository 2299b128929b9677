/**
 * `podsync check` while the daemon runs on its embedded database (#35 item 3): the daemon holds the
 * data folder and the API budgets, so the check asks it to run the same verification through them,
 * and the seller reads the same report as with the daemon stopped, with the same exit code.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { podsync } from "../support/cli.js"
import { daemonConfig, type Stack, startDaemon, startStack, stopDaemons } from "../support/pipeline.js"

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.close())

describe("podsync check beside a running daemon", () => {
  it("prints the same report as with the daemon stopped, exits 0, and catches a POD SKU in pod_variant_id through the daemon", async () => {
    const { port, config } = await daemonConfig(stack, { name: "check-beside-daemon" })
    const mapping = fs.readFileSync(stack.mappingFile, "utf8")
    const daemon = await startDaemon(config, port)
    let beside: Awaited<ReturnType<typeof podsync>>
    let typo: Awaited<ReturnType<typeof podsync>>
    try {
      beside = await podsync(["check", "--config", config])
      // The seller pastes the POD SKU where its variant id belongs; the daemon keeps running.
      fs.writeFileSync(stack.mappingFile, mapping.replace(",UTS01-FOREST-S,GM0002010011,", ",UTS01-FOREST-S,UTS01-FOREST-S,"))
      typo = await podsync(["check", "--config", config])
    } finally {
      fs.writeFileSync(stack.mappingFile, mapping)
      await stopDaemons(daemon)
    }
    const alone = await podsync(["check", "--config", config])

    expect(beside.stdout).toMatch(/Catalog: \d+ mapped POD variant\(s\) checked against .* OK/)
    expect(beside.stdout).toContain("Store demo-shopify (shopify): credentials accepted")
    expect(beside.stdout).not.toContain("NOT VERIFIED")
    expect(beside.code).toBe(0)
    expect(alone.code).toBe(0)
    expect(beside.stdout).toBe(alone.stdout)

    expect(typo.stdout).toContain(
      `${stack.mappingFile}:2: pod_variant_id: "UTS01-FOREST-S" is not a POD variant id: that is the SKU of variant GM0002010011`
    )
    expect(typo.stdout).toContain("write GM0002010011 in pod_variant_id")
    expect(typo.stdout).not.toContain("NOT VERIFIED")
    expect(typo.stderr).toContain("problems: 1 in the mapping files")
    expect(typo.code).toBe(1)
  }, 120_000)

  it("refuses, naming both files, when the running daemon runs another configuration", async () => {
    const { port, config } = await daemonConfig(stack, { name: "check-daemon-own" })
    const other = config.replace("check-daemon-own.yaml", "check-other.yaml")
    fs.copyFileSync(config, other)
    const daemon = await startDaemon(config, port)
    try {
      const result = await podsync(["check", "--config", other])
      expect(result.stderr).toContain(`runs with ${fs.realpathSync(config)}, not ${fs.realpathSync(other)}`)
      expect(result.code).toBe(1)
    } finally {
      await stopDaemons(daemon)
    }
  }, 120_000)
})
