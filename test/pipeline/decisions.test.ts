import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { DraftPlan } from "../../src/mapping/DraftPlan.js"
import {
  PodBadRequestError,
  type PodError,
  PodRateLimitedError,
  PodServerError,
  PodTransportError,
  PodUnauthorizedError
} from "../../src/pod/PodErrors.js"
import type { DraftSummary } from "../../src/pod/schemas/Drafts.js"
import type { StoredOrder } from "../../src/repos/OrdersRepo.js"
import { changeMatters, decideChangeAfterDraft } from "../../src/pipeline/ChangeDecision.js"
import { backoffMs, decideDraftFailure, decideLookedUp, earliest, isLiveDraft } from "../../src/pipeline/DraftDecision.js"
import { decideMatch } from "../../src/pipeline/MatchDecision.js"
import { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import { Schema } from "effect"
import { sampleLine, sampleOrder } from "../support/orders.js"

/** The three pure decisions of the stages, without layers: what happens to an order given what was read. */

const context = { operation: "drafts.create", method: "POST", path: "/api/v3/orders/drafts" }
const badRequest = new PodBadRequestError({
  ...context,
  ambiguous: false,
  code: "invalid",
  message: "bad",
  details: [{ field: "address.zip", issue: "is required" }]
})
const timeout = new PodTransportError({ ...context, ambiguous: true, reason: "timeout", cause: "no answer within 5000 ms" })
const refused = new PodUnauthorizedError({ ...context, ambiguous: false, code: "unauthorized", message: "no", details: [] })
const limited = (retryAfterSeconds?: number) =>
  new PodRateLimitedError({
    ...context,
    ambiguous: false,
    message: "slow down",
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds })
  })
const serverError = (ambiguous: boolean) =>
  new PodServerError({ ...context, ambiguous, status: 503, code: "unavailable", message: "down", details: [] })

describe("the draft outcome decision", () => {
  it("holds an order the service refused, in the service's words", () => {
    const decision = decideDraftFailure(badRequest, 0)
    expect(decision).toMatchObject({ _tag: "Held", error: { tag: "PodBadRequestError", ambiguous: false } })
    expect(decision._tag === "Held" && decision.message).toContain("address.zip: is required")
  })

  it("puts an order in doubt when the request may have reached the service, to be looked up before any new POST", () => {
    expect(decideDraftFailure(timeout, 3)).toMatchObject({ _tag: "InDoubt", lookUpInMs: 2_000 })
    expect(decideDraftFailure(serverError(true), 0)._tag).toBe("InDoubt")
  })

  it("waits out a 429's Retry-After, and says when the credentials are refused", () => {
    expect(decideDraftFailure(limited(7), 0)).toEqual({ _tag: "RetryLater", inMs: 7_000, credentialsRefused: false })
    expect(decideDraftFailure(limited(), 0)).toEqual({ _tag: "RetryLater", inMs: 60_000, credentialsRefused: false })
    expect(decideDraftFailure(refused, 2)).toEqual({ _tag: "RetryLater", inMs: backoffMs(2), credentialsRefused: true })
  })

  it("never retries blindly after an ambiguous failure, and backs off at most five minutes otherwise", () => {
    const errors: ReadonlyArray<PodError> = [badRequest, timeout, refused, limited(3), serverError(true), serverError(false)]
    fc.assert(fc.property(fc.constantFrom(...errors), fc.nat(50), (error, attempts) => {
      const decision = decideDraftFailure(error, attempts)
      if (error.ambiguous) expect(decision._tag).toBe("InDoubt")
      if (decision._tag === "RetryLater" && error._tag !== "PodRateLimitedError") expect(decision.inMs).toBeLessThanOrEqual(300_000)
      expect(backoffMs(attempts)).toBeGreaterThanOrEqual(5_000)
    }))
  })

  it("keeps the earliest of the drafts a look-up found (by order_date, then id)", () => {
    const drafts = [
      { order_id: "d-3", order_date: "2026-11-25T10:00:00Z" },
      { order_id: "d-2", order_date: "2026-11-25T09:00:00Z" },
      { order_id: "d-1", order_date: "2026-11-25T09:00:00Z" }
    ] as unknown as readonly [DraftSummary, ...Array<DraftSummary>]
    expect(earliest(drafts).order_id).toBe("d-1")
  })
})

describe("the change-after-draft decision", () => {
  const before = sampleOrder()
  it("moves an order cancelled in the store after its draft to cancel_pending, once", () => {
    const cancelled = { ...before, cancelled: true }
    expect(decideChangeAfterDraft("drafted", cancelled, before)).toBe("cancel_pending")
    expect(decideChangeAfterDraft("cancel_pending", cancelled, before)).toBe("none")
  })

  it("tells an address change from a change of the buyer's units, and ignores orders without a draft", () => {
    expect(decideChangeAfterDraft("checked_out", { ...before, shipTo: { ...before.shipTo!, city: "Elsewhere" } }, before)).toBe(
      "address_changed"
    )
    expect(decideChangeAfterDraft("drafted", { ...before, lines: [sampleLine({ currentQuantity: 5 })] }, before)).toBe("lines_changed")
    expect(decideChangeAfterDraft("ready", { ...before, cancelled: true }, before)).toBe("none")
  })

  it("a version identical to the stored one never matters, in any state", () => {
    const encoded = Schema.encodeSync(NormalizedOrder)(before)
    fc.assert(fc.property(fc.constantFrom("pulled", "ready", "drafted", "shipped", "fulfilled"), (state) => {
      expect(changeMatters(state, encoded, encoded)).toBe(false)
    }))
  })
})

describe("the match decision", () => {
  const stored = { id: 7, state: "pulled", heldReason: null, heldDetails: null } as unknown as StoredOrder
  const held = (code: string, message: string): DraftPlan => ({ _tag: "Held", code, message, problems: [] } as unknown as DraftPlan)
  const now = Date.parse("2026-11-25T12:00:00Z")

  it("holds with the seller's reason, and looks again in a minute when the catalog decides", () => {
    const decision = decideMatch(stored, held("out_of_stock", "UTS01 is out of stock"), now, "test", "standard")
    expect(decision).toMatchObject({
      move: { id: 7, from: "pulled", to: "held", change: { held: { code: "out_of_stock" }, nextAttemptAt: new Date(now + 60_000) } }
    })
  })

  it("leaves an order held for the same reason where it is (no event written)", () => {
    const already = { ...stored, state: "held", heldReason: "unmatched", heldDetails: { message: "no row for SKU X" } } as StoredOrder
    expect(decideMatch(already, held("unmatched", "no row for SKU X"), now, "test", "standard")).toEqual({ release: null })
  })

  it("cancels before a draft, and marks an order with nothing to print as not a POD order", () => {
    expect(decideMatch(stored, { _tag: "Cancelled" }, now, "test", "standard")).toMatchObject({ move: { to: "cancelled" } })
    expect(decideMatch(stored, { _tag: "NotPod", message: "no POD lines" }, now, "test", "standard")).toMatchObject({
      move: { to: "not_pod" }
    })
  })
})

describe("decideLookedUp: what the POD service holds of an order this database never drafted", () => {
  const draft = (
    order_id: string,
    status: NonNullable<DraftSummary["status"]>,
    order_date: string,
    origin_order_id?: string
  ): DraftSummary => ({
    order_id,
    reference_id: "shop:1",
    status,
    order_date,
    ...(origin_order_id === undefined ? {} : { origin_order_id })
  })

  it("adopts nothing when nothing stands: deleted and archived drafts are named, never adopted", () => {
    expect(decideLookedUp([], [])).toEqual({ _tag: "Nothing", gone: [] })
    const gone = [
      draft("d1", "VENDOR_ORDER_DRAFT_STATUS_DELETED", "2026-11-01T00:00:00Z"),
      draft("d2", "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED", "2026-11-02T00:00:00Z")
    ]
    expect(decideLookedUp(gone, [])).toEqual({ _tag: "Nothing", gone: ["d1", "d2"] })
    expect(gone.map(isLiveDraft)).toEqual([false, false])
  })

  it("adopts the earliest live draft, naming the other live ones as duplicates", () => {
    const drafts = [
      draft("d3", "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT", "2026-11-03T00:00:00Z"),
      draft("d1", "VENDOR_ORDER_DRAFT_STATUS_DELETED", "2026-11-01T00:00:00Z"),
      draft("d2", "VENDOR_ORDER_DRAFT_STATUS_DRAFT", "2026-11-02T00:00:00Z")
    ]
    const decided = decideLookedUp(drafts, [])
    expect(decided._tag === "Draft" && [decided.draft.order_id, decided.duplicates]).toEqual(["d2", ["d3"]])
  })

  it("follows a POD order before any draft: the earliest, with the draft it came from", () => {
    const drafts = [
      draft("d1", "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "2026-11-01T00:00:00Z", "o1"),
      draft("d2", "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT", "2026-11-02T00:00:00Z")
    ]
    const orders = [{ order_id: "o9", order_date: "2026-11-05T00:00:00Z" }, { order_id: "o1", order_date: "2026-11-01T00:00:00Z" }]
    expect(decideLookedUp(drafts, orders)).toEqual({ _tag: "Order", order: orders[1], draftId: "d1" })
  })
})
