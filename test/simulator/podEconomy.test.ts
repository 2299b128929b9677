// The POD simulator's Economy shipping and credential headers, over real HTTP: the coverage check
// answers as published (protobuf JSON, zero values left out) and validates its body as published;
// an Economy draft to an uncovered ZIP is moved to Standard and says so; both published header
// pairs are accepted unless narrowed.
import { describe, expect, it } from "vitest"
import { sampleAddress, sampleDraftData } from "../../src/simulator/pod/index.js"
import { AUTH, usePodSimulator } from "./podHarness.js"

const pod = usePodSimulator({ rateLimit: false })
const check = (body: unknown, headers?: Record<string, string>) => pod.api("POST", "/api/v3/shipping/economy/coverage/check", body, headers)

const economyDraft = async (address: Record<string, string>, referenceId: string) => {
  const [variantId] = await pod.inStockVariantIds(1)
  return pod.api("POST", "/api/v3/orders/draft", {
    data: {
      ...sampleDraftData({ variantId: variantId!, referenceId }),
      address: { ...sampleAddress, ...address },
      shipping_method: "METHOD_ECONOMY"
    }
  })
}

describe("POST /api/v3/shipping/economy/coverage/check", () => {
  it("answers one result per ZIP in the order asked, five digits each, leaving `covered: false` out", async () => {
    const reply = await check({ zip_codes: ["90012", "99501-1234", "10001", "59001"] })
    expect(reply.status).toBe(200)
    expect(reply.body.status).toBe("success")
    expect(reply.body.data.coverage_version).toMatch(/^sim-/)
    expect(reply.body.data.results).toEqual([
      { zip_code: "90012", covered: true },
      { zip_code: "99501", reason: "uncovered_zip" },
      { zip_code: "10001", covered: true },
      { zip_code: "59001", reason: "uncovered_zip" }
    ])
  })

  it("refuses a body outside the published limits with the field and the issue", async () => {
    const cases: ReadonlyArray<readonly [unknown, string, string]> = [
      [{}, "zip_codes", "is required"],
      [{ zip_codes: [] }, "zip_codes", "must hold 1 to 100 ZIP codes"],
      [{ zip_codes: Array.from({ length: 101 }, (_, i) => String(10000 + i)) }, "zip_codes", "must hold 1 to 100 ZIP codes"],
      [{ zip_codes: ["90012", "1234"] }, "zip_codes[1]", "must be 5 to 10 characters"],
      [{ zip_codes: ["90012-12345"] }, "zip_codes[0]", "must be 5 to 10 characters"],
      [{ zip_codes: ["ABCDE"] }, "zip_codes[0]", "must be a US ZIP code: five digits, or ZIP+4"],
      [{ zip_codes: [90012] }, "zip_codes[0]", "must be a string"]
    ]
    for (const [body, field, issue] of cases) {
      const reply = await check(body)
      expect(reply.status, JSON.stringify(body).slice(0, 60)).toBe(400)
      expect(reply.body).toMatchObject({ code: "INVALID_ARGUMENT", details: [{ field, issue }] })
      expect(typeof reply.body.message).toBe("string")
    }
  })

  it("takes ZIPs marked uncovered (or covered) by the admin hook as a new coverage edition, until reset", async () => {
    const before = await check({ zip_codes: ["10001", "59001"] })
    const marked = await pod.admin("POST", "/__sim/economy/coverage", { uncovered: ["10001"], covered: ["59001"] })
    expect(marked.status).toBe(200)
    const after = await check({ zip_codes: ["10001", "59001"] })
    expect(after.body.data.results).toEqual([{ zip_code: "10001", reason: "uncovered_zip" }, { zip_code: "59001", covered: true }])
    expect(after.body.data.coverage_version).not.toBe(before.body.data.coverage_version)
    await pod.admin("POST", "/__sim/reset")
    expect((await check({ zip_codes: ["10001"] })).body.data.results).toEqual([{ zip_code: "10001", covered: true }])
  })
})

describe("an Economy draft", () => {
  it("keeps METHOD_ECONOMY to a covered ZIP", async () => {
    const reply = await economyDraft({}, "eco:covered")
    expect(reply.status).toBe(200)
    expect(reply.body.data.shipping_option).toEqual({ method: "METHOD_ECONOMY" })
    expect(reply.body.data.shipping_substitution).toBeUndefined()
  })

  it("is moved to Standard for an uncovered ZIP, and its draft and order say so", async () => {
    await pod.admin("POST", "/__sim/economy/coverage", { uncovered: ["90012"] })
    const reply = await economyDraft({}, "eco:uncovered")
    expect(reply.status).toBe(200)
    const substitution = { from: "METHOD_ECONOMY", to: "METHOD_STANDARD", reason: "uncovered_zip" }
    expect(reply.body.data).toMatchObject({ shipping_option: { method: "METHOD_STANDARD" }, shipping_substitution: substitution })
    const draftId = reply.body.data.order_id as string
    expect((await pod.api("GET", `/api/v3/orders/draft/${draftId}`)).body.data.shipping_substitution).toEqual(substitution)
    const order = (await pod.admin("POST", `/__sim/drafts/${draftId}/checkout`, { paid: true })).body.order_id as string
    const view = (await pod.api("GET", `/api/v3/orders/${order}`)).body.data
    expect(view).toMatchObject({ shipping_option: { method: "METHOD_STANDARD" }, shipping_substitution: substitution })
  })

  it("is refused outside the US, and to military or offshore addresses", async () => {
    for (
      const address of [
        { country_code: "CA", state_code: "ON", zip_code: "M5V 2T6", city: "Toronto" },
        { state_code: "AE", zip_code: "09021" },
        { state_code: "HI", zip_code: "96813", city: "Honolulu" }
      ]
    ) {
      const reply = await economyDraft(address, `eco:refused:${address.state_code}`)
      expect(reply.status).toBe(400)
      expect(reply.body.details).toEqual([{
        field: "data.shipping_method",
        issue: expect.stringContaining("METHOD_ECONOMY is not available for this destination")
      }])
    }
  })
})

describe("v3 credential headers", () => {
  const catalog = (headers: Record<string, string>) => pod.api("GET", "/api/v3/catalog?paging.limit=1", undefined, headers)
  const X_API = { "X-API-Key": "sim-client-key", "X-API-Secret": "sim-client-secret" }

  it("accepts both published pairs, and names both when none is sent", async () => {
    expect((await catalog(AUTH)).status).toBe(200)
    expect((await catalog(X_API)).status).toBe(200)
    expect((await check({ zip_codes: ["90012"] }, X_API)).status).toBe(200)
    const none = await catalog({})
    expect(none.status).toBe(401)
    expect(none.body.message).toBe(
      "missing credentials: send X-Gearment-Client-Key and X-Gearment-Client-Secret, or X-API-Key and X-API-Secret"
    )
    expect((await catalog({ "X-API-Key": "sim-client-key", "X-API-Secret": "wrong" })).status).toBe(401)
  })

  it("takes one pair only when the admin switch says so, until reset", async () => {
    expect((await pod.admin("POST", "/__sim/auth-headers", { accept: "x-api" })).body).toEqual({
      accept: [{ key: "X-API-Key", secret: "X-API-Secret" }]
    })
    expect((await catalog(AUTH)).status).toBe(401)
    expect((await catalog(X_API)).status).toBe(200)
    expect((await pod.admin("POST", "/__sim/auth-headers", { accept: "nope" })).status).toBe(400)
    await pod.admin("POST", "/__sim/reset")
    expect((await catalog(AUTH)).status).toBe(200)
  })
})
