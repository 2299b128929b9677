import * as fs from "node:fs"
import * as path from "node:path"
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Cause, Effect, Exit, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reportCommand } from "../../src/cli/report.js"
import { freePort } from "../support/cli.js"
import { createOrders, type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"

/** Runs `podsync report ...` in this process and returns what it printed. */
const podsyncReport = async (args: ReadonlyArray<string>) => {
  const printed: Array<string> = []
  const cli = Command.run(reportCommand, { name: "podsync", version: "test" })
  const exit = await Effect.runPromiseExit(
    Effect.gen(function*() {
      const console = yield* Effect.console
      const capture = { ...console, log: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void printed.push(parts.join(" "))) }
      return yield* Effect.withConsole(cli(["node", "podsync", ...args]), capture)
    }).pipe(Effect.provide(NodeContext.layer))
  )
  return { exit, printed: printed.join("\n") }
}

const failure = (exit: Exit.Exit<unknown, unknown>) => {
  const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
  return error === undefined ? undefined : { _tag: (error as { _tag?: string })._tag, message: (error as Error).message }
}

describe("podsync report (no daemon running: it opens the embedded database itself)", () => {
  let stack: Stack
  let config: string
  beforeAll(async () => {
    stack = await startStack()
    config = writeDaemonConfig(stack, await freePort(), { name: "report-cli" })
  })
  afterAll(async () => stack.close())

  it("writes the period's report under reports.dir and prints its summary and files", async () => {
    await createOrders(stack, 2)
    const from = new Date(Date.now() - 3_600_000).toISOString()
    const { exit, printed } = await podsyncReport(["--config", config, "--from", from, "--store", "demo-shopify"])
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(printed).toMatch(
      /^report \d{8}T\d{4,6}Z_\d{8}T\d{4,6}Z \(demo-shopify, UTC\): 0 orders pulled; 0 need a person; 0 drift findings; no margin yet \(written here\)/
    )
    const files = printed.split("\n").slice(1).map((line) => line.trim())
    expect(files.map((f) => path.extname(f))).toEqual([".html", ".csv", ".json"])
    expect(files.every((f) => f.startsWith(path.join(stack.dir, "reports", "report-")) && f.endsWith(`-demo-shopify${path.extname(f)}`)))
      .toBe(true)
    const json = JSON.parse(fs.readFileSync(files[2]!, "utf8"))
    // The store API was read: its two new orders are there, though podsync has not pulled them yet (too recent to be findings).
    expect(json.overall.flow).toMatchObject({ storeOrdersCreated: 2, pulled: 0 })
    expect(json.sources.stores).toEqual([{ storeKey: "demo-shopify", orders: 2, error: null }])
  }, 40_000)

  it("refuses an unknown store and a lone --to, saying what to do", async () => {
    const unknown = await podsyncReport(["--config", config, "--store", "nope"])
    // Usage mistakes (exit 2, with the usage): podsync names the configuration's stores.
    expect(failure(unknown.exit)).toEqual({
      _tag: "UsageError",
      message: expect.stringMatching(/^no store "nope" in .*\(its stores: demo-shopify\)$/)
    })
    const loneTo = await podsyncReport(["--config", config, "--to", "2026-11-20"])
    expect(failure(loneTo.exit)).toEqual({ _tag: "UsageError", message: "--to needs --from (e.g. --from 2026-11-01 --to 2026-11-30)" })
  }, 40_000)
})
