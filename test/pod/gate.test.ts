// The PodRequestGate hook: every request passes through it once, with its
// operation, lane and store; it decides when the request is sent; it hears
// every outcome. Also: nothing of the credentials reaches the logs.
import { Deferred, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate, type PodRequestInfo, type PodRequestOutcome } from "../../src/pod/PodRequestGate.js"
import { startPodSimulator, type RunningPodSimulator } from "../../src/simulator/pod/index.js"
import { addFault, admin, draftInput, firstInStockVariant, podClientLayer, run, SIM_KEY, SIM_SECRET, stats } from "./podSim.js"

let sim: RunningPodSimulator
let variantId = ""

interface Recorded {
  readonly arounds: Array<PodRequestInfo>
  readonly reports: Array<{ readonly info: PodRequestInfo; readonly outcome: PodRequestOutcome }>
}

const recordingGate = (recorded: Recorded) =>
  Layer.succeed(PodRequestGate, {
    around: (info, send) => Effect.suspend(() => (recorded.arounds.push(info), send)),
    report: (info, outcome) => Effect.sync(() => void recorded.reports.push({ info, outcome }))
  })

beforeAll(async () => {
  sim = await startPodSimulator({ rateLimit: false })
  variantId = (await firstInStockVariant(sim.url)).variant_id
})
afterAll(() => sim.close())
beforeEach(async () => {
  await admin(sim.url, "POST", "/reset")
})

describe("PodRequestGate", () => {
  it("sees every request once, with default lanes and the caller's lane and store", async () => {
    const recorded: Recorded = { arounds: [], reports: [] }
    const layer = podClientLayer(sim.url, {}, recordingGate(recorded))
    await run(
      layer,
      Effect.flatMap(PodClient, (c) =>
        Effect.all([
          c.listCatalog({ paging: { limit: 1 } }),
          c.createDraft(draftInput(variantId, "shop-x:1"), { storeKey: "shop-x" }),
          c.findDraftsByReferenceId("shop-x:1", { lane: "urgent", storeKey: "shop-x" })
        ]))
    )
    expect(recorded.arounds).toEqual([
      { operation: "catalog.list", method: "GET", path: "/api/v3/catalog", lane: "background" },
      { operation: "drafts.create", method: "POST", path: "/api/v3/orders/draft", lane: "normal", storeKey: "shop-x" },
      { operation: "drafts.list", method: "GET", path: "/api/v3/orders/draft", lane: "urgent", storeKey: "shop-x" }
    ])
    expect(recorded.reports.map((r) => [r.info.operation, r.outcome])).toEqual([
      ["catalog.list", { _tag: "Answered", status: 200 }],
      ["drafts.create", { _tag: "Answered", status: 200 }],
      ["drafts.list", { _tag: "Answered", status: 200 }]
    ])
  })

  it("decides when the request is sent: nothing reaches the service while the gate holds it", async () => {
    const program = Effect.gen(function*() {
      const open = yield* Deferred.make<void>()
      const entered = yield* Deferred.make<void>()
      const holdingGate = Layer.succeed(PodRequestGate, {
        around: (_info, send) => Deferred.succeed(entered, undefined).pipe(Effect.zipRight(Deferred.await(open)), Effect.zipRight(send)),
        report: () => Effect.void
      })
      const fiber = yield* Effect.fork(
        Effect.flatMap(PodClient, (c) => c.createDraft(draftInput(variantId, "shop-y:1"))).pipe(
          Effect.provide(podClientLayer(sim.url, {}, holdingGate))
        )
      )
      yield* Deferred.await(entered)
      const whileHeld = yield* Effect.promise(() => stats(sim.url))
      yield* Deferred.succeed(open, undefined)
      const draft = yield* fiber.await.pipe(Effect.flatten)
      const afterRelease = yield* Effect.promise(() => stats(sim.url))
      return { whileHeld, afterRelease, draft }
    })
    const { afterRelease, draft, whileHeld } = await Effect.runPromise(program)
    expect(whileHeld.total).toBe(0)
    expect(afterRelease.total).toBe(1)
    expect(draft.reference_id).toBe("shop-y:1")
  })

  it("hears NoAnswer when the connection is reset", async () => {
    await addFault(sim.url, { route: "POST /api/v3/orders/draft", kind: "reset", count: 1 })
    const recorded: Recorded = { arounds: [], reports: [] }
    await run(
      podClientLayer(sim.url, {}, recordingGate(recorded)),
      Effect.flip(Effect.flatMap(PodClient, (c) => c.createDraft(draftInput(variantId, "shop-z:1"))))
    )
    expect(recorded.reports.map((r) => r.outcome)).toEqual([{ _tag: "NoAnswer", reason: "reset" }])
  })

  it("is not consulted for a request refused locally", async () => {
    const recorded: Recorded = { arounds: [], reports: [] }
    const error = await run(
      podClientLayer(sim.url, {}, recordingGate(recorded)),
      Effect.flip(Effect.flatMap(PodClient, (c) => c.createDraft({ ...draftInput(variantId, "shop-z:2"), line_items: [] })))
    )
    expect(error._tag).toBe("PodInvalidRequestError")
    expect(recorded.arounds).toEqual([])
  })
})

describe("credentials", () => {
  it("never appear in the logs, even at debug level and on failures", async () => {
    const lines: Array<string> = []
    const collector = Logger.make((entry) =>
      void lines.push(JSON.stringify({ ...entry, annotations: Object.fromEntries(entry.annotations) }))
    )
    const capture = Logger.replace(Logger.defaultLogger, collector)
    const ok = podClientLayer(sim.url)
    const bad = podClientLayer(sim.url, { clientKey: Redacted.make("leaky-key-123"), clientSecret: Redacted.make("leaky-secret-456") })
    const calls = Effect.flatMap(
      PodClient,
      (c) =>
        Effect.all([Effect.either(c.listCatalog({ paging: { limit: 1 } })), Effect.either(c.getDraft("missing"))]).pipe(
          Effect.tap((results) => Effect.logError("results", ...results))
        )
    ).pipe(Logger.withMinimumLogLevel(LogLevel.All), Effect.provide(capture))
    await run(ok, calls)
    await run(bad, calls)
    expect(lines.some((l) => l.includes("pod request answered"))).toBe(true)
    const all = lines.join("\n")
    for (const secret of [SIM_KEY, SIM_SECRET, "leaky-key-123", "leaky-secret-456"]) expect(all).not.toContain(secret)
  })
})
