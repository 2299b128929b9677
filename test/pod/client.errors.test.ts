// Each way a POD call fails, produced by the simulator over real HTTP, and the
// ambiguity the pipeline relies on to decide whether to look before retrying.
import { NodeHttpClient } from "@effect/platform-node"
import { it as effectIt } from "@effect/vitest"
import { Chunk, DateTime, Duration, Effect, Either, Fiber, Layer, Redacted, TestClock } from "effect"
import { createServer } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { isAmbiguous, isRetryable, type PodError } from "../../src/pod/PodErrors.js"
import { PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate, type PodRequestInfo, type PodRequestOutcome } from "../../src/pod/PodRequestGate.js"
import { startPodSimulator, type RunningPodSimulator } from "../../src/simulator/pod/index.js"
import { addFault, admin, clientConfig, draftInput, firstInStockVariant, podClientLayer, run, SIM_SECRET, stats } from "./podSim.js"

let sim: RunningPodSimulator
let layer: ReturnType<typeof podClientLayer>
let variantId = ""

const failure = <A>(effect: Effect.Effect<A, PodError, PodClient>, useLayer = layer): Promise<PodError> =>
  run(useLayer, Effect.flip(effect))

const DRAFT_ROUTE = "POST /api/v3/orders/draft"

beforeAll(async () => {
  sim = await startPodSimulator()
  layer = podClientLayer(sim.url)
  variantId = (await firstInStockVariant(sim.url)).variant_id
})
afterAll(() => sim.close())
beforeEach(async () => {
  await admin(sim.url, "POST", "/reset")
})

const createDraft = (ref: string) => Effect.flatMap(PodClient, (c) => c.createDraft(draftInput(variantId, ref)))
const getDraft = (id: string) => Effect.flatMap(PodClient, (c) => c.getDraft(id))
const draftsFor = (ref: string) => run(layer, Effect.flatMap(PodClient, (c) => c.findDraftsByReferenceId(ref)))

describe("refusals: the service did not act, never ambiguous", () => {
  it("400 keeps the code, the message and every field/issue detail", async () => {
    const error = await failure(Effect.flatMap(PodClient, (c) => c.createDraft(draftInput("no-such-variant", "s:400"))))
    expect(error._tag).toBe("PodBadRequestError")
    if (error._tag !== "PodBadRequestError") return
    expect(error.code).toBe("INVALID_ARGUMENT")
    expect(error.details.length).toBeGreaterThan(0)
    expect(error.details[0]?.field).toMatch(/line_items\[0\]/)
    expect(error.details[0]?.issue).not.toBe("")
    expect(isAmbiguous(error)).toBe(false)
    expect(isRetryable(error)).toBe(false)
  })

  it("401 on bad credentials, and the secret appears nowhere in the error", async () => {
    const wrong = podClientLayer(sim.url, { clientSecret: Redacted.make("wrong-secret-value") })
    const error = await failure(getDraft("x"), wrong)
    expect(error._tag).toBe("PodUnauthorizedError")
    expect(isAmbiguous(error)).toBe(false)
    const everything = `${String(error)} ${JSON.stringify(error)} ${error.message}`
    expect(everything).not.toContain("wrong-secret-value")
    expect(everything).not.toContain(SIM_SECRET)
  })

  it("404 for a draft that does not exist", async () => {
    const error = await failure(getDraft("does-not-exist"))
    expect(error._tag).toBe("PodNotFoundError")
    expect(error.path).toBe("/api/v3/orders/draft/does-not-exist")
    expect(isAmbiguous(error)).toBe(false)
  })

  it("403 on a create is a refusal, not ambiguous; an undocumented 409 is typed too", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "error5xx", status: 403, count: 1 })
    const forbidden = await failure(createDraft("s:403"))
    expect(forbidden._tag).toBe("PodForbiddenError")
    expect(isAmbiguous(forbidden)).toBe(false)
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "error5xx", status: 409, count: 1 })
    const conflict = await failure(createDraft("s:409"))
    expect(conflict._tag).toBe("PodUnexpectedStatusError")
    if (conflict._tag === "PodUnexpectedStatusError") expect(conflict.status).toBe(409)
    expect(isAmbiguous(conflict)).toBe(false)
    expect(await draftsFor("s:403")).toHaveLength(0)
  })

  it("deleting a webhook twice: the second answer is not found, with the field named", async () => {
    const hook = await run(
      layer,
      Effect.flatMap(
        PodClient,
        (c) =>
          c.createWebhook({
            status: "STATUS_ACTIVE",
            topic: "TOPIC_ORDER_CANCELLED",
            version: "VERSION_V3",
            delivery_url: "https://h.example.com/d"
          })
      )
    )
    await run(layer, Effect.flatMap(PodClient, (c) => c.deleteWebhook(hook.webhook_id)))
    const error = await failure(Effect.flatMap(PodClient, (c) => c.deleteWebhook(hook.webhook_id)))
    expect(error._tag).toBe("PodNotFoundError")
    if (error._tag === "PodNotFoundError") expect(error.details.map((d) => d.field)).toEqual(["webhook_id"])
    expect(isAmbiguous(error)).toBe(false)
  })

  it("status = error inside a 200 (duplicate webhook) is an envelope error", async () => {
    const hook = {
      status: "STATUS_ACTIVE",
      topic: "TOPIC_ORDER_COMPLETED",
      version: "VERSION_V3",
      delivery_url: "https://h.example.com/p"
    } as const
    await run(layer, Effect.flatMap(PodClient, (c) => c.createWebhook(hook)))
    const error = await failure(Effect.flatMap(PodClient, (c) => c.createWebhook(hook)))
    expect(error._tag).toBe("PodEnvelopeError")
    if (error._tag === "PodEnvelopeError") expect(error.message).toMatch(/duplicate/i)
    expect(isAmbiguous(error)).toBe(false)
  })

  it("a request breaking a documented limit is refused locally and never sent", async () => {
    const before = (await stats(sim.url)).total
    const input = draftInput(variantId, "s:local")
    const error = await failure(
      Effect.flatMap(PodClient, (c) =>
        c.createDraft({
          ...input,
          line_items: [{
            variant_id: variantId,
            quantity: 0,
            printing_options: [{ location_code: "PRINT_LOCATION_CODE_POCKET", url: "https://d/p.png" }]
          }]
        }))
    )
    expect(error._tag).toBe("PodInvalidRequestError")
    if (error._tag === "PodInvalidRequestError") {
      expect(error.issue).toMatch(/quantity/)
      expect(error.issue).toMatch(/front or a back/)
    }
    expect((await stats(sim.url)).total).toBe(before)
  })
})

describe("429", () => {
  it("parses Retry-After into the block it announces and reports it to the gate", async () => {
    await admin(sim.url, "POST", "/rate-limit", { requests: 2, windowSeconds: 10, blockSeconds: 60 })
    const outcomes: Array<{ info: PodRequestInfo; outcome: PodRequestOutcome }> = []
    const recordingGate = Layer.succeed(PodRequestGate, {
      around: (_info, send) => send,
      report: (info, outcome) => Effect.sync(() => void outcomes.push({ info, outcome }))
    })
    const gated = podClientLayer(sim.url, {}, recordingGate)
    const before = await run(gated, DateTime.now)
    const results = await run(
      gated,
      Effect.all([getDraft("a"), getDraft("b"), getDraft("c")].map((e) => Effect.either(e)))
    )
    const error = results[2]
    expect(error !== undefined && Either.isLeft(error)).toBe(true)
    if (error === undefined || Either.isRight(error)) return
    expect(error.left._tag).toBe("PodRateLimitedError")
    if (error.left._tag !== "PodRateLimitedError") return
    expect(error.left.message).toBe("Rate limit exceeded. Please retry later.")
    expect(error.left.retryAfterSeconds).toBeGreaterThan(50)
    expect(error.left.retryAfterSeconds).toBeLessThanOrEqual(60)
    const blockedFor = DateTime.distance(before, error.left.blockedUntil!)
    expect(blockedFor).toBeGreaterThan(50_000)
    expect(blockedFor).toBeLessThan(62_000)
    expect(isAmbiguous(error.left)).toBe(false)
    expect(isRetryable(error.left)).toBe(true)
    const last = outcomes.at(-1)?.outcome
    expect(last?._tag).toBe("Answered")
    if (last?._tag === "Answered") {
      expect(last.status).toBe(429)
      expect(Duration.toSeconds(last.retryAfter!)).toBe(error.left.retryAfterSeconds)
    }
    expect(outcomes.slice(0, 2).map((o) => o.outcome._tag === "Answered" && o.outcome.status)).toEqual([404, 404])
  })

  it("a 429 on a create is not ambiguous: the service did not act", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "rateLimit429", count: 1, retryAfterSeconds: 7 })
    const error = await failure(createDraft("s:429"))
    expect(error._tag).toBe("PodRateLimitedError")
    if (error._tag === "PodRateLimitedError") expect(error.retryAfterSeconds).toBe(7)
    expect(isAmbiguous(error)).toBe(false)
    expect(await draftsFor("s:429")).toHaveLength(0)
  })
})

describe("server failures", () => {
  it("a 500 on a read is retryable but not ambiguous", async () => {
    await addFault(sim.url, { route: "GET /api/v3/orders/draft/:order_id", kind: "error5xx", status: 500, count: 1 })
    const error = await failure(getDraft("x"))
    expect(error._tag).toBe("PodServerError")
    if (error._tag === "PodServerError") expect(error.status).toBe(500)
    expect(isAmbiguous(error)).toBe(false)
    expect(isRetryable(error)).toBe(true)
  })

  it("a 502 with an HTML body on a create is ambiguous and keeps the body text as message", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "error5xx", status: 502, count: 1 })
    const error = await failure(createDraft("s:502"))
    expect(error._tag).toBe("PodServerError")
    if (error._tag === "PodServerError") {
      expect(error.status).toBe(502)
      expect(error.message).toContain("upstream unavailable")
    }
    expect(isAmbiguous(error)).toBe(true)
  })
})

describe("unreadable answers", () => {
  it("a malformed 2xx on a create is a decode error, ambiguous, with the raw body kept; the draft exists", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "malformed", count: 1 })
    const error = await failure(createDraft("s:malformed"))
    expect(error._tag).toBe("PodDecodeError")
    if (error._tag !== "PodDecodeError") return
    expect(error.httpStatus).toBe(200)
    expect(error.rawBody.startsWith('{"status":"success"')).toBe(true)
    expect(error.issue).toMatch(/not JSON/)
    expect(isAmbiguous(error)).toBe(true)
    expect(await draftsFor("s:malformed")).toHaveLength(1)
  })

  it("a malformed answer to a read is not ambiguous", async () => {
    await addFault(sim.url, { route: "GET /api/v3/orders/draft", kind: "malformed", count: 1 })
    const error = await failure(Effect.flatMap(PodClient, (c) => c.listDrafts()))
    expect(error._tag).toBe("PodDecodeError")
    expect(isAmbiguous(error)).toBe(false)
  })
})

describe("no answer", () => {
  it("a reset after sending a create is an ambiguous transport error", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "reset", count: 1 })
    const error = await failure(createDraft("s:reset"))
    expect(error._tag).toBe("PodTransportError")
    if (error._tag === "PodTransportError") expect(error.reason).toBe("reset")
    expect(isAmbiguous(error)).toBe(true)
    // the simulator resets before processing: the look-up finds nothing, so a new POST is safe
    expect(await draftsFor("s:reset")).toHaveLength(0)
  })

  it("commit-then-drop is ambiguous and the draft is found by filter.reference_ids", async () => {
    await addFault(sim.url, { route: DRAFT_ROUTE, kind: "commitThenDrop", count: 1 })
    const error = await failure(createDraft("s:ctd"))
    expect(error._tag).toBe("PodTransportError")
    expect(isAmbiguous(error)).toBe(true)
    const found = await draftsFor("s:ctd")
    expect(found).toHaveLength(1)
    expect(found[0]?.reference_id).toBe("s:ctd")
    expect((await stats(sim.url)).draftsByReferenceId["s:ctd"]).toBe(1)
  })

  it("a refused connection means nothing was sent: not ambiguous, even for a create", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
      })
    })
    const error = await failure(createDraft("s:refused"), podClientLayer(`http://127.0.0.1:${port}`))
    expect(error._tag).toBe("PodTransportError")
    if (error._tag === "PodTransportError") expect(error.reason).toBe("connect")
    expect(isAmbiguous(error)).toBe(false)
  })
})

describe("timeouts (TestClock)", () => {
  const slowLayer = () =>
    PodClient.Default(clientConfig(sim.url, { timeoutMs: 5_000 })).pipe(
      Layer.provide(NodeHttpClient.layer),
      Layer.provide(PodRequestGate.passThrough)
    )

  /** Forks `effect`, waits until its timeout is scheduled on the TestClock, then moves time past it. */
  const timedOut = <A>(effect: Effect.Effect<A, PodError, PodClient>, after: Duration.DurationInput) =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      while (Chunk.isEmpty(yield* TestClock.sleeps())) yield* Effect.yieldNow()
      yield* TestClock.adjust(after)
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(slowLayer()))

  effectIt.effect("a create with no answer within the timeout is ambiguous", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() => addFault(sim.url, { route: DRAFT_ROUTE, kind: "latency", latencyMs: [3000, 3000], count: 1 }))
      const error = yield* timedOut(createDraft("s:timeout"), "6 seconds")
      expect(error._tag).toBe("PodTransportError")
      if (error._tag === "PodTransportError") expect(error.reason).toBe("timeout")
      expect(isAmbiguous(error)).toBe(true)
    }))

  effectIt.effect("a per-call timeout overrides the client's, and a timed-out read is not ambiguous", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() =>
        addFault(sim.url, { route: "GET /api/v3/orders/draft/:order_id", kind: "latency", latencyMs: [3000, 3000], count: 1 })
      )
      const read = Effect.flatMap(PodClient, (c) => c.getDraft("x", { timeoutMs: 1_000 }))
      const error = yield* timedOut(read, "1001 millis")
      expect(error._tag).toBe("PodTransportError")
      expect(isAmbiguous(error)).toBe(false)
    }))
})
