/**
 * Reading receipts: a page of `getShopReceipts` and one receipt by id
 * (`getShopReceipt`), decoded, with the receipt exactly as received kept
 * beside the decoded form. Receipts arrive whole (transactions included), so
 * unlike Shopify nothing needs a follow-up request.
 */
import { Effect, Either, Option, Schema } from "effect"
import { keepBody, StoreApiError, type StoreError, StoreResponseError } from "../StoreErrors.js"
import type { EtsyReceiptFilter } from "./EtsyConfig.js"
import type { EtsyHttp } from "./EtsyHttp.js"
import { EtsyReceipt, EtsyReceiptIdentity, EtsyReceiptList, updatedSecondsOf } from "./EtsySchemas.js"

export interface FetchedReceipt {
  readonly receiptId: number
  readonly updatedSeconds: number
  /** Left: why the receipt cannot be read (it is still placed in the walk by its identity). */
  readonly receipt: Either.Either<EtsyReceipt, string>
  readonly raw: unknown
}

export interface EtsyReceiptReader {
  /** One page of receipts changed at or after `min_last_modified`, oldest change first. */
  readonly page: (query: Readonly<Record<string, string>>) => Effect.Effect<ReadonlyArray<FetchedReceipt>, StoreError>
  /** The receipt as it is now, or none when Etsy does not know it. */
  readonly byId: (receiptId: string) => Effect.Effect<Option.Option<FetchedReceipt>, StoreError>
}

const decodeIdentity = Schema.decodeUnknownEither(EtsyReceiptIdentity)
export const decodeEtsyReceipt = Schema.decodeUnknownEither(EtsyReceipt)

export const filterQuery = (filter: EtsyReceiptFilter): Record<string, string> =>
  filter === "paidUnshipped" ? { was_paid: "true", was_shipped: "false" } : {}

export const isReceiptId = (text: string): boolean => /^[1-9]\d{0,15}$/.test(text)

export const makeEtsyReceiptReader = (
  settings: { readonly storeKey: string; readonly shopId: string; readonly filter: EtsyReceiptFilter },
  http: EtsyHttp
): EtsyReceiptReader => {
  const { storeKey, shopId } = settings

  const fetched = (operation: string, raw: unknown): Either.Either<FetchedReceipt, StoreResponseError> => {
    const identity = decodeIdentity(raw)
    const updatedSeconds = Either.isRight(identity) ? updatedSecondsOf(identity.right) : undefined
    if (Either.isLeft(identity) || updatedSeconds === undefined) {
      return Either.left(
        new StoreResponseError({
          storeKey,
          operation,
          ambiguous: false,
          status: 200,
          body: keepBody(JSON.stringify(raw)),
          detail: "a receipt without a numeric receipt_id and updated_timestamp"
        })
      )
    }
    return Either.right({
      receiptId: identity.right.receipt_id,
      updatedSeconds,
      receipt: Either.mapLeft(decodeEtsyReceipt(raw), (error) => error.message),
      raw
    })
  }

  const page: EtsyReceiptReader["page"] = (query) =>
    Effect.flatMap(
      http.run({
        operation: "getShopReceipts",
        method: "GET",
        path: `/shops/${shopId}/receipts`,
        query: { ...filterQuery(settings.filter), ...query, sort_on: "updated", sort_order: "asc" },
        write: false,
        lane: "pull",
        schema: EtsyReceiptList
      }),
      (answer): Effect.Effect<ReadonlyArray<FetchedReceipt>, StoreError> =>
        answer._tag === "Refused"
          ? Effect.fail(new StoreApiError({ storeKey, operation: "getShopReceipts", messages: [answer.message] }))
          : Effect.forEach(answer.value.results, (raw) => fetched("getShopReceipts", raw))
    )

  const byId: EtsyReceiptReader["byId"] = (receiptId) =>
    Effect.flatMap(
      http.run({
        operation: "getShopReceipt",
        method: "GET",
        path: `/shops/${shopId}/receipts/${receiptId}`,
        write: false,
        lane: "other",
        schema: Schema.Unknown
      }),
      (answer): Effect.Effect<Option.Option<FetchedReceipt>, StoreError> => {
        if (answer._tag === "Refused") {
          return answer.status === 404
            ? Effect.succeedNone
            : Effect.fail(new StoreApiError({ storeKey, operation: "getShopReceipt", messages: [answer.message] }))
        }
        return Effect.map(fetched("getShopReceipt", answer.value), Option.some)
      }
    )

  return { page, byId }
}
