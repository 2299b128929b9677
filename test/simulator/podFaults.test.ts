import { describe, expect, it } from "vitest"
import { sampleDraftData } from "../../src/simulator/pod/index.js"
import { usePodSimulator } from "./podHarness.js"

const pod = usePodSimulator({ rateLimit: false })
const CREATE = "POST /api/v3/orders/draft"

const addFault = async (fault: Record<string, unknown>): Promise<string> => {
  const reply = await pod.admin("POST", "/__sim/faults", fault)
  expect(reply.status).toBe(200)
  return reply.body.id
}

const postDraft = async (referenceId: string) => {
  const [variantId] = await pod.inStockVariantIds(1)
  return pod.api("POST", "/api/v3/orders/draft", { data: sampleDraftData({ variantId: variantId as string, referenceId }) })
}

const draftsFor = async (referenceId: string): Promise<Array<any>> =>
  (await pod.api("GET", `/api/v3/orders/draft?filter.reference_ids=${encodeURIComponent(referenceId)}`)).body.data ?? []

describe("fault injection", () => {
  it("reset: the connection is cut before processing, so no draft exists", async () => {
    await addFault({ route: CREATE, kind: "reset", count: 1 })
    await expect(postDraft("reset:1")).rejects.toThrow()
    expect(await draftsFor("reset:1")).toEqual([])
    expect((await postDraft("reset:1")).status).toBe(200)
    const stats = (await pod.admin("GET", "/__sim/stats")).body
    expect(stats.connectionsDropped).toBe(1)
    expect(stats.requests[CREATE]).toBe(2)
  })

  it("commitThenDrop: the draft is created, then the connection is cut without an answer", async () => {
    await addFault({ route: CREATE, kind: "commitThenDrop", count: 1 })
    await expect(postDraft("ctd:1")).rejects.toThrow()
    const found = await draftsFor("ctd:1")
    expect(found).toHaveLength(1)
    expect(found[0].reference_id).toBe("ctd:1")
  })

  it("malformed: a 200 whose body is not JSON, after the work was done", async () => {
    await addFault({ route: CREATE, kind: "malformed", count: 1 })
    const reply = await postDraft("mal:1")
    expect(reply.status).toBe(200)
    expect(() => JSON.parse(reply.text)).toThrow()
    expect(await draftsFor("mal:1")).toHaveLength(1)
  })

  it("error5xx: 500 with the spec's body, or a gateway page for 502/503/504, without doing the work", async () => {
    await addFault({ route: CREATE, kind: "error5xx", count: 1 })
    const internal = await postDraft("5xx:1")
    expect(internal.status).toBe(500)
    expect(internal.body).toEqual({ code: "INTERNAL", message: expect.any(String) })
    await addFault({ route: CREATE, kind: "error5xx", status: 503, count: 1 })
    const unavailable = await postDraft("5xx:1")
    expect(unavailable.status).toBe(503)
    expect(unavailable.headers.get("content-type")).toContain("text/html")
    expect(await draftsFor("5xx:1")).toEqual([])
  })

  it("unknownEnum: enum values the client has never seen", async () => {
    const draft = await pod.createDraft({ referenceId: "enum:1" })
    await addFault({ route: "GET /api/v3/orders/draft/:order_id", kind: "unknownEnum", count: 1 })
    const odd = (await pod.api("GET", `/api/v3/orders/draft/${draft.order_id}`)).body.data
    expect(odd.status).toBe("VENDOR_ORDER_DRAFT_STATUS_SIM_FUTURE_VALUE")
    expect(odd.order_platform).toBe("MARKETPLACE_PLATFORM_SIM_FUTURE_VALUE")
    expect(odd.order_id).toBe(draft.order_id)
    expect((await pod.api("GET", `/api/v3/orders/draft/${draft.order_id}`)).body.data.status).toBe(
      "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"
    )
  })

  it("rateLimit429: a storm of 429s with Retry-After for `count` requests, then normal service", async () => {
    await addFault({ kind: "rateLimit429", count: 3, retryAfterSeconds: 2 })
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const reply = await pod.api("GET", "/api/v3/catalog?paging.limit=1")
      statuses.push(reply.status)
      if (reply.status === 429) {
        expect(reply.headers.get("retry-after")).toBe("2")
        expect(reply.body).toEqual({ error: { code: 429, message: "Rate limit exceeded. Please retry later." } })
      }
    }
    expect(statuses).toEqual([429, 429, 429, 200])
    expect((await pod.admin("GET", "/__sim/stats")).body).toMatchObject({ rejected429: 3, accepted: 1 })
  })

  it("envelopeError: HTTP 200 carrying status=error", async () => {
    await addFault({ route: "GET /api/v3/webhooks", kind: "envelopeError", count: 1 })
    const reply = await pod.api("GET", "/api/v3/webhooks")
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: "error", message: expect.any(String) })
  })

  it("latency: the answer comes after a delay in the given range", async () => {
    await addFault({ route: "GET /api/v3/catalog", kind: "latency", latencyMs: [150, 200] })
    const started = Date.now()
    expect((await pod.api("GET", "/api/v3/catalog?paging.limit=1")).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(145)
  })

  it("scopes faults to their route, honours probability 0, and clears them", async () => {
    await addFault({ route: "GET /api/v3/orders", kind: "error5xx" })
    await addFault({ kind: "error5xx", probability: 0 })
    expect((await pod.api("GET", "/api/v3/orders")).status).toBe(500)
    expect((await pod.api("GET", "/api/v3/orders/draft")).status).toBe(200)
    expect((await pod.admin("DELETE", "/__sim/faults")).status).toBe(200)
    expect((await pod.api("GET", "/api/v3/orders")).status).toBe(200)
  })

  it("refuses faults on unknown routes or of unknown kinds", async () => {
    const reply = await pod.admin("POST", "/__sim/faults", { route: "POST /api/v3/orders/drafts", kind: "reset" })
    expect(reply.status).toBe(400)
    expect(reply.body.details.map((d: { field: string }) => d.field)).toEqual(["route"])
    expect((await pod.admin("POST", "/__sim/faults", { kind: "gremlins" })).status).toBe(400)
  })
})
