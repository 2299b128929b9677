/**
 * Reading orders: one page of a walk's window, one order by id, and the refund details an order's
 * `refunds[]` summary lacks (which lines, how many units), merged into the payload kept as `raw` so
 * that normalizing it again gives the same answer.
 */
import { Effect, Either, type Option, Schema } from "effect"
import { keepBody, type StoreError, StoreResponseError } from "../StoreErrors.js"
import type { PageQuery } from "./WooCursor.js"
import { decodeAnswer, isUnknownId, type WooAnswer, type WooHttp, type WooRequest } from "./WooHttp.js"
import { WooOrder } from "./WooSchemas.js"

export interface OrdersPage {
  readonly rows: ReadonlyArray<unknown>
  readonly total: number | null
  readonly totalPages: number | null
}

/** An order as fetched (`raw`, refund lines merged in) and decoded. */
export interface FetchedOrder {
  readonly raw: unknown
  readonly order: WooOrder
}

export interface WooOrderReader {
  readonly page: (query: PageQuery, perPage: number) => Effect.Effect<OrdersPage, StoreError>
  /** The order with its refund details, or none when the store does not know the id. */
  readonly byId: (storeOrderId: string) => Effect.Effect<Option.Option<FetchedOrder>, StoreError>
  /** Decodes a listed row and merges its refund details; Left says why the row cannot be read. */
  readonly complete: (row: unknown) => Effect.Effect<Either.Either<FetchedOrder, string>, StoreError>
}

const RawArray = Schema.Array(Schema.Unknown)
const RawObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const decodeOrder = Schema.decodeUnknownEither(WooOrder)

const header = (answer: WooAnswer, name: string): number | null => {
  const value = Number(answer.headers[name])
  return answer.headers[name] === undefined || !Number.isInteger(value) ? null : value
}

export const isOrderId = (text: string): boolean => /^\d{1,19}$/.test(text)

export const makeWooOrderReader = (storeKey: string, http: WooHttp): WooOrderReader => {
  const page: WooOrderReader["page"] = (query, perPage) => {
    const request: WooRequest = {
      name: "orders.list",
      method: "GET",
      path: "/wc/v3/orders",
      query: [
        ["orderby", "modified"],
        ["order", "asc"],
        ["dates_are_gmt", "true"],
        ["per_page", String(perPage)],
        ...(query.offset > 0 ? [["offset", String(query.offset)] as const] : []),
        ...(query.modifiedAfter === null ? [] : [["modified_after", query.modifiedAfter] as const]),
        ["modified_before", query.modifiedBefore]
      ],
      write: false
    }
    return Effect.flatMap(http.send(request), (answer) =>
      Effect.map(decodeAnswer(storeKey, request, answer, RawArray), (rows) => ({
        rows,
        total: header(answer, "x-wp-total"),
        totalPages: header(answer, "x-wp-totalpages")
      })))
  }

  /** `raw` with each `refunds[]` entry given the `line_items` of the refund of that id. */
  const withRefundLines = (
    raw: Record<string, unknown>,
    order: WooOrder
  ): Effect.Effect<Either.Either<FetchedOrder, string>, StoreError> => {
    if (order.refunds.length === 0) return Effect.succeed(Either.right({ raw, order }))
    const request: WooRequest = {
      name: "refunds.list",
      method: "GET",
      path: `/wc/v3/orders/${order.id}/refunds`,
      query: [["per_page", "100"]],
      write: false
    }
    return Effect.flatMap(
      http.send(request),
      (answer) =>
        Effect.map(decodeAnswer(storeKey, request, answer, Schema.Array(RawObject)), (refunds) => {
          const linesById = new Map(refunds.map((r) => [String(r.id), r.line_items ?? []]))
          const summaries = Array.isArray(raw.refunds) ? raw.refunds : []
          const merged = {
            ...raw,
            refunds: summaries.map((s) =>
              typeof s === "object" && s !== null ? { ...s, line_items: linesById.get(String((s as { id?: unknown }).id)) ?? [] } : s
            )
          }
          return Either.map(Either.mapLeft(decodeOrder(merged), (e) => e.message), (decoded) => ({ raw: merged, order: decoded }))
        })
    )
  }

  const complete: WooOrderReader["complete"] = (row) => {
    const object = Schema.decodeUnknownEither(RawObject)(row)
    if (Either.isLeft(object)) return Effect.succeed(Either.left("the row is not a JSON object"))
    const decoded = decodeOrder(row)
    return Either.isLeft(decoded) ? Effect.succeed(Either.left(decoded.left.message)) : withRefundLines(object.right, decoded.right)
  }

  const byId: WooOrderReader["byId"] = (storeOrderId) => {
    if (!isOrderId(storeOrderId)) return Effect.succeedNone
    const request: WooRequest = { name: "orders.get", method: "GET", path: `/wc/v3/orders/${storeOrderId}`, write: false }
    return Effect.flatMap(http.send(request), (answer) => {
      if (isUnknownId(answer)) return Effect.succeedNone
      return Effect.flatMap(
        decodeAnswer(storeKey, request, answer, RawObject),
        (row) =>
          Effect.flatMap(complete(row), (result) =>
            Either.match(result, {
              onRight: (fetched) => Effect.succeedSome(fetched),
              onLeft: (problem) =>
                Effect.fail(
                  new StoreResponseError({
                    storeKey,
                    operation: request.name,
                    ambiguous: false,
                    status: answer.status,
                    body: keepBody(answer.body),
                    detail: problem
                  })
                )
            }))
      )
    })
  }

  return { page, byId, complete }
}
