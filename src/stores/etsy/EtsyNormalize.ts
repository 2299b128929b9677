/**
 * Pure: an Etsy `ShopReceipt` (with its transactions) to a `NormalizedOrder`.
 * Faithful: unpaid, cancelled, refunded and shipped receipts keep their
 * status; the pipeline decides what to produce.
 *
 * - Text is HTML-decoded (Etsy encodes it; see HtmlEntities.ts).
 * - A withheld address (every line null, as for buyers in regions without a
 *   partnership; Etsy still sends the name) keeps the name and is recorded in
 *   `withheld`, so the pipeline holds the order saying Etsy withheld it; a
 *   partly missing one keeps what is there and leaves the rest absent (name ""
 *   when there is none), so the pipeline holds the order naming the field.
 * - Lines are transactions: `lineId` = transaction_id, `variantId` =
 *   product_id (the listing's inventory product, i.e. the variant),
 *   `productId` = listing_id; variations (including the Personalization
 *   answer) become attributes `formatted_name: formatted_value`, in order.
 * - Etsy ships whole receipts: once shipped, nothing is left to fulfil. A
 *   cancelled or fully refunded receipt has no units left.
 */
import type { OrderNormalizer } from "../ConnectorAssembly.js"
import { DateTime, Either, Option } from "effect"
import * as Money from "../../domain/Money.js"
import type { Attribute, FinancialStatus, NormalizedLine, NormalizedOrder, ShipTo, WithheldData } from "../../domain/NormalizedOrder.js"
import type { EtsyMoney, EtsyReceipt, EtsyTransaction } from "./EtsySchemas.js"
import { updatedSecondsOf } from "./EtsySchemas.js"
import { decodeHtmlEntities } from "./HtmlEntities.js"

/** The Personalization variation's `formatted_name` on listings in English. */
export const PERSONALIZATION = "Personalization"

const present = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value.trim() === "" ? undefined : decodeHtmlEntities(value.trim())

const defined = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }

/** Etsy's epoch seconds as the canonical ISO form ("2026-03-01T09:30:00Z"). */
export const isoFromSeconds = (seconds: number): string | undefined =>
  Option.getOrUndefined(
    Option.map(DateTime.make(seconds * 1000), (dateTime) => DateTime.formatIso(dateTime).replace(/\.000Z$/, "Z"))
  )

export const financialStatusOf = (status: string | null | undefined, isPaid: boolean): FinancialStatus => {
  switch (status?.trim().toLowerCase()) {
    case undefined:
    case "":
      return isPaid ? "paid" : "pending"
    case "paid":
    case "completed":
      return "paid"
    case "open":
    case "payment processing":
      return "pending"
    case "canceled":
    case "cancelled":
      return isPaid ? "refunded" : "voided"
    case "fully refunded":
      return "refunded"
    case "partially refunded":
      return "partially_refunded"
    default:
      return "unknown"
  }
}

const isCancelledStatus = (status: string | null | undefined): boolean =>
  ["canceled", "cancelled"].includes(status?.trim().toLowerCase() ?? "")

/** amount / divisor, exactly, when the divisor is a power of ten (Etsy uses 100). */
export const moneyOf = (value: EtsyMoney): Either.Either<Money.Money, string> => {
  const { amount, divisor, currency_code } = value
  if (!Number.isSafeInteger(amount) || !Number.isSafeInteger(divisor) || divisor <= 0 || 1_000_000_000 % divisor !== 0) {
    return Either.left(`money ${JSON.stringify(value)} is not amount / divisor with a power-of-ten divisor`)
  }
  if (!/^[A-Z]{3}$/.test(currency_code)) return Either.left(`currency_code "${currency_code}" is not an ISO 4217 code`)
  return Either.right(Money.fromNanos(currency_code, BigInt(amount) * (Money.NANOS_PER_UNIT / BigInt(divisor))))
}

/** The address lines Etsy withholds in regions without a partnership (ShopReceipt's nullable ones). */
const WITHHELD_LINES = ["first_line", "city", "zip", "country_iso"] as const

/** What Etsy withheld of the buyer's address: every line null (as it answers without a partnership). */
export const withheldAddress = (receipt: EtsyReceipt): ReadonlyArray<WithheldData> =>
  WITHHELD_LINES.every((key) => receipt[key] == null)
    ? [{
      fields: ["shipTo.line1", "shipTo.city", "shipTo.postalCode", "shipTo.countryCode"],
      reason: "Etsy withholds this buyer's shipping address (it shares addresses only in regions where it has a partnership); " +
        "copy the address from the order in Etsy's Shop Manager and draft it at the POD service by hand"
    }]
    : []

export const normalizeAddress = (receipt: EtsyReceipt): ShipTo | null => {
  const fields = defined({
    line1: present(receipt.first_line),
    line2: present(receipt.second_line),
    city: present(receipt.city),
    region: present(receipt.state),
    // Etsy's `state` is a code for some countries ("NY", "QC") and a name for others.
    regionCode: Option.getOrUndefined(Option.filter(Option.fromNullable(present(receipt.state)), (s) => /^[A-Z0-9]{1,3}$/.test(s))),
    postalCode: present(receipt.zip),
    countryCode: present(receipt.country_iso)?.toUpperCase()
  })
  const name = present(receipt.name)
  if (name === undefined && Object.keys(fields).length === 0) return null
  return { name: name ?? "", ...fields }
}

const variantTitleOf = (transaction: EtsyTransaction): string | undefined => {
  const parts = (transaction.variations ?? [])
    .filter((v) => v.question_id == null && decodeHtmlEntities(v.formatted_name) !== PERSONALIZATION)
    .map((v) => `${decodeHtmlEntities(v.formatted_name)}: ${decodeHtmlEntities(v.formatted_value)}`)
  return parts.length === 0 ? undefined : parts.join(" / ")
}

export const normalizeTransaction = (receipt: EtsyReceipt, transaction: EtsyTransaction): NormalizedLine => {
  const gone = isCancelledStatus(receipt.status) || receipt.status?.trim().toLowerCase() === "fully refunded"
  const currentQuantity = gone ? 0 : transaction.quantity
  const shipped = receipt.is_shipped || transaction.shipped_timestamp != null
  return {
    lineId: String(transaction.transaction_id),
    title: present(transaction.title) ?? "",
    quantity: transaction.quantity,
    currentQuantity,
    fulfillableQuantity: shipped ? 0 : currentQuantity,
    attributes: (transaction.variations ?? []).map(
      (v): Attribute => ({ key: decodeHtmlEntities(v.formatted_name), value: decodeHtmlEntities(v.formatted_value) })
    ),
    requiresShipping: transaction.is_digital !== true,
    ...defined({
      sku: present(transaction.sku),
      variantId: transaction.product_id == null ? undefined : String(transaction.product_id),
      productId: transaction.listing_id == null ? undefined : String(transaction.listing_id),
      variantTitle: variantTitleOf(transaction)
    })
  }
}

const timestamp = (field: string, seconds: number | undefined): Either.Either<string, string> => {
  const iso = seconds === undefined ? undefined : isoFromSeconds(seconds)
  return iso === undefined ? Either.left(`${field} ${String(seconds)} is not a Unix timestamp`) : Either.right(iso)
}

/** Normalizes one receipt; `raw` is the receipt as received, kept on the result. Left: why it cannot be read. */
export const normalizeEtsyReceipt: OrderNormalizer<EtsyReceipt> = (storeKey, receipt, raw) =>
  Either.gen(function*() {
    const createdAt = yield* timestamp("created_timestamp", receipt.created_timestamp ?? receipt.create_timestamp ?? undefined)
    const updatedAt = yield* timestamp("updated_timestamp", updatedSecondsOf(receipt))
    if (receipt.grandtotal == null) return yield* Either.left("the receipt has no grandtotal, so no currency")
    const total = yield* moneyOf(receipt.grandtotal)
    const transactions = receipt.transactions ?? []
    const shippingMethod = transactions.map((t) => present(t.shipping_method)).find((m) => m !== undefined)
    const giftMessage = present(receipt.gift_message)
    const attributes: Array<Attribute> = receipt.is_gift === true
      ? [{ key: "is_gift", value: "true" }, ...(giftMessage ? [{ key: "gift_message", value: giftMessage }] : [])]
      : []
    const withheld = withheldAddress(receipt)
    const normalized: NormalizedOrder = {
      storeKey,
      platform: "etsy",
      storeOrderId: String(receipt.receipt_id),
      name: String(receipt.receipt_id),
      createdAt,
      updatedAt,
      currency: total.currency,
      financialStatus: financialStatusOf(receipt.status, receipt.is_paid),
      fulfillmentStatus: receipt.is_shipped ? "fulfilled" : "unfulfilled",
      cancelled: isCancelledStatus(receipt.status),
      holds: [],
      shipTo: normalizeAddress(receipt),
      lines: transactions.map((t) => normalizeTransaction(receipt, t)),
      tags: [],
      attributes,
      total,
      raw,
      ...(withheld.length > 0 ? { withheld } : {}),
      ...defined({
        email: present(receipt.buyer_email),
        shippingMethod: shippingMethod === undefined ? undefined : { title: shippingMethod },
        note: present(receipt.message_from_buyer)
      })
    }
    return normalized
  })
