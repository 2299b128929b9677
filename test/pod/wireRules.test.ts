// The pure rules under the client: query encoding, Retry-After, paging, ambiguity, open enums.
import { DateTime, Duration, Effect, Either, Logger, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { hasNextPage, listQueryParams } from "../../src/pod/PodPaging.js"
import { isAmbiguousFailure, parseRetryAfter } from "../../src/pod/PodAnswers.js"
import { isAmbiguous, PodError, PodRateLimitedError, PodTransportError } from "../../src/pod/PodErrors.js"
import { Draft } from "../../src/pod/schemas/Drafts.js"
import { OpenEnum, isKnownValue } from "../../src/pod/schemas/OpenEnum.js"
import { DraftStatuses } from "../../src/domain/PodEnums.js"

describe("query parameters", () => {
  it("arrays become repeated keys, scalars one key, absent ones nothing", () => {
    expect(
      listQueryParams({
        filter: { reference_ids: ["a:1", "a:2"], created_at_min: "2026-01-01T00:00:00Z", statuses: undefined },
        paging: { limit: 50, page: 3 }
      })
    ).toEqual([
      ["filter.reference_ids", "a:1"],
      ["filter.reference_ids", "a:2"],
      ["filter.created_at_min", "2026-01-01T00:00:00Z"],
      ["paging.limit", "50"],
      ["paging.page", "3"]
    ])
    expect(listQueryParams({})).toEqual([])
  })
})

describe("Retry-After", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0)
  it("reads delay-seconds", () => {
    expect(Option.map(parseRetryAfter("60", now), Duration.toMillis)).toEqual(Option.some(60_000))
    expect(Option.map(parseRetryAfter(" 1.5 ", now), Duration.toMillis)).toEqual(Option.some(1_500))
  })
  it("reads an HTTP date relative to now, never negative", () => {
    expect(Option.map(parseRetryAfter("Thu, 01 Jan 2026 12:01:30 GMT", now), Duration.toMillis)).toEqual(Option.some(90_000))
    expect(Option.map(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now), Duration.toMillis)).toEqual(Option.some(0))
  })
  it("ignores a missing or unreadable header", () => {
    expect(Option.isNone(parseRetryAfter(undefined, now))).toBe(true)
    expect(Option.isNone(parseRetryAfter("soon", now))).toBe(true)
  })
})

describe("paging", () => {
  const page = (n: number, paging?: { total_page?: number }) => ({ data: Array.from({ length: n }, (_, i) => i), paging })
  it("follows total_page when given, otherwise full pages", () => {
    expect(hasNextPage(1, 10, page(10, { total_page: 3 }))).toBe(true)
    expect(hasNextPage(3, 10, page(10, { total_page: 3 }))).toBe(false)
    expect(hasNextPage(1, 10, page(10))).toBe(true)
    expect(hasNextPage(2, 10, page(4))).toBe(false)
    expect(hasNextPage(1, 10, page(0, { total_page: 9 }))).toBe(false)
  })
})

describe("ambiguity", () => {
  const answered = (status: number, unreadable = false) => ({ _tag: "Answered", status, unreadable }) as const
  const noAnswer = (reason: string) => ({ _tag: "NoAnswer", reason }) as const
  it("a mutation is ambiguous after a timeout, a reset, a 5xx or an unreadable 2xx", () => {
    for (const f of [noAnswer("timeout"), noAnswer("reset"), noAnswer("other"), answered(500), answered(503), answered(200, true)]) {
      expect(isAmbiguousFailure("mutation", f)).toBe(true)
    }
  })
  it("never after a refusal, a refused connection, or on a read", () => {
    for (const f of [answered(400), answered(401), answered(403), answered(404), answered(429), answered(409), noAnswer("connect")]) {
      expect(isAmbiguousFailure("mutation", f)).toBe(false)
    }
    for (const f of [noAnswer("timeout"), answered(500), answered(200, true)]) expect(isAmbiguousFailure("read", f)).toBe(false)
  })
})

describe("open enums", () => {
  it("decode known values as literals and keep unknown ones, logging each once", () => {
    const Status = OpenEnum("test_status", DraftStatuses)
    const logged: Array<unknown> = []
    const decodeTwice = Effect.all([
      Schema.decodeUnknown(Status)("VENDOR_ORDER_DRAFT_STATUS_DRAFT"),
      Schema.decodeUnknown(Status)("VENDOR_ORDER_DRAFT_STATUS_FROZEN"),
      Schema.decodeUnknown(Status)("VENDOR_ORDER_DRAFT_STATUS_FROZEN")
    ]).pipe(
      Effect.provide(Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ annotations }) => void logged.push(Object.fromEntries(annotations)))
      ))
    )
    const [known, unknown, again] = Effect.runSync(decodeTwice)
    expect(isKnownValue(DraftStatuses, known)).toBe(true)
    expect(unknown).toBe("VENDOR_ORDER_DRAFT_STATUS_FROZEN")
    expect(again).toBe(unknown)
    expect(isKnownValue(DraftStatuses, unknown)).toBe(false)
    expect(logged).toEqual([{ enum: "test_status", value: "VENDOR_ORDER_DRAFT_STATUS_FROZEN" }])
    expect(Schema.encodeSync(Status)(unknown)).toBe("VENDOR_ORDER_DRAFT_STATUS_FROZEN")
  })

  it("an extra field or a null never fails a response decode", () => {
    const decoded = Schema.decodeUnknownEither(Draft)({ order_id: "d1", brand_new_field: { x: 1 }, status: null, store_id: "s" })
    expect(Either.isRight(decoded)).toBe(true)
    // Absent flags read as false: protobuf JSON leaves `false` out.
    const flags = { is_label_attached: false, is_shipping_verification_bypassed: false, is_approved: false, auto_approve: false }
    if (Either.isRight(decoded)) expect(decoded.right).toEqual({ order_id: "d1", store_id: "s", ...flags })
  })
})

describe("errors as records", () => {
  it("survive being stored as JSON and read back, ambiguity included", () => {
    const errors = [
      new PodRateLimitedError({
        operation: "drafts.create",
        method: "POST",
        path: "/api/v3/orders/draft",
        ambiguous: false,
        message: "Rate limit exceeded. Please retry later.",
        retryAfterSeconds: 60,
        blockedUntil: DateTime.unsafeMake("2026-01-01T12:01:00Z")
      }),
      new PodTransportError({
        operation: "drafts.create",
        method: "POST",
        path: "/api/v3/orders/draft",
        ambiguous: true,
        reason: "reset",
        cause: "ECONNRESET: socket hang up"
      })
    ]
    for (const error of errors) {
      const stored = JSON.stringify(Schema.encodeSync(PodError)(error))
      const back = Schema.decodeUnknownSync(PodError)(JSON.parse(stored))
      expect(back._tag).toBe(error._tag)
      expect(isAmbiguous(back)).toBe(isAmbiguous(error))
      expect(back).toEqual(error)
    }
  })
})
