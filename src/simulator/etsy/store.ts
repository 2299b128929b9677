import { placedAtMs } from "../kit/history.js"
import { bump, StoreEvents, type OperationStats, type StoreListener } from "../kit/stats.js"
import { generateBuyer, generateNote, generateTransaction, seededRandom, type Random, type ReceiptSpec } from "./fixtures.js"
import { trackingLinkFor } from "./carriers.js"
import { grandtotalCents, isCanceled, type AddressFields, type StoredReceipt, type StoredShipment } from "./model.js"

/** The shop's receipts, its clock, statistics, and the changes a buyer, the seller or Etsy make. */

export type ReceiptEvent = "order.paid" | "order.canceled" | "order.shipped"

/** `requests`: API requests that passed auth and the quota (what Etsy would count). */
export interface EtsyStats extends OperationStats {
  /** 429 answers from the quota. */
  throttled: number
  unauthorized: number
  forbidden: number
  /** refresh_token grants answered with tokens. */
  tokenGrants: number
  tokenRefusals: number
  shipmentsByReceipt: Record<string, number>
  /** Etsy emails the buyer each time a receipt gets a shipment or is marked shipped. */
  buyerEmailsByReceipt: Record<string, number>
}

export interface ReceiptPatch extends Partial<AddressFields> {
  message_from_buyer?: string
  is_gift?: boolean
  gift_message?: string
  buyer_email?: string
  transactions?: Array<{ transaction_id: number; quantity?: number; variations?: StoredReceipt["transactions"][number]["variations"] }>
}

const emptyStats = (): EtsyStats => ({
  requests: 0,
  requestsByOperation: {},
  throttled: 0,
  unauthorized: 0,
  forbidden: 0,
  tokenGrants: 0,
  tokenRefusals: 0,
  shipmentsByReceipt: {},
  buyerEmailsByReceipt: {},
  faultsInjected: {}
})

const firstIds = { receipt: 3401234501, transaction: 4012345601, shipment: 1098765401, buyer: 901234501 }

/** Ids of another shop of the simulator start this far on, so no two shops share one. */
export const SHOP_ID_SPACING = 10_000_000

export class EtsyShop {
  receipts = new Map<number, StoredReceipt>()
  stats: EtsyStats = emptyStats()
  /** "Mutate during walk": receipts edited after each answered getShopReceipts. */
  churnPerListQuery = 0
  private ids: typeof firstIds
  private clockOffsetMs = 0
  private random: Random
  private readonly events = new StoreEvents<ReceiptEvent, StoredReceipt>()

  constructor(
    private readonly seed: number,
    readonly sellerUserId: number,
    private readonly wallClock: () => number = Date.now,
    /** The shop's place among the simulator's shops: its ids start `SHOP_ID_SPACING` times this on. */
    private readonly index = 0
  ) {
    this.random = seededRandom(seed)
    this.ids = this.firstIds()
  }

  private firstIds(): typeof firstIds {
    const offset = this.index * SHOP_ID_SPACING
    return {
      receipt: firstIds.receipt + offset,
      transaction: firstIds.transaction + offset,
      shipment: firstIds.shipment + offset,
      buyer: firstIds.buyer + offset
    }
  }

  reset(): void {
    this.receipts = new Map()
    this.stats = emptyStats()
    this.churnPerListQuery = 0
    this.ids = this.firstIds()
    this.clockOffsetMs = 0
    this.random = seededRandom(this.seed)
  }

  /** The simulator's now in ms (wall clock plus `/__sim/clock/advance`). */
  readonly now = (): number => this.wallClock() + this.clockOffsetMs
  nowSeconds(): number {
    return Math.floor(this.now() / 1000)
  }
  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000
  }
  countRequest(operation: string): void {
    this.stats.requests += 1
    bump(this.stats.requestsByOperation, operation)
  }
  countFault(kind: string): void {
    bump(this.stats.faultsInjected, kind)
  }

  onReceiptEvent(listener: StoreListener<ReceiptEvent, StoredReceipt>): void {
    this.events.subscribe(listener)
  }

  /** Every version of a receipt gets its own `update_timestamp`: now, and at least a second past the last. */
  private touch(receipt: StoredReceipt): void {
    receipt.update_timestamp = Math.max(this.nowSeconds(), receipt.update_timestamp + 1)
  }

  createReceipt(spec: ReceiptSpec = {}): StoredReceipt {
    const buyer = generateBuyer(this.random)
    const now = Math.floor(placedAtMs(spec.placedAt, this.nowSeconds() * 1000) / 1000)
    const status = spec.status ?? "paid"
    const paid = !["open", "payment processing"].includes(status)
    const withheld = spec.address_withheld === true
    const field = <K extends keyof AddressFields>(key: K): AddressFields[K] =>
      // Etsy withholds the address lines, never the name: ShopReceipt.name is a string in its OAS.
      withheld && key !== "name" ? null : spec[key] === undefined ? buyer[key] : (spec[key] as AddressFields[K])
    const receiptId = this.ids.receipt++
    const transactions = (spec.transactions ?? Array.from({ length: 1 + Math.floor(this.random() * 2) }, () => ({}))).map((t) => {
      const g = generateTransaction(this.random, t)
      return {
        transaction_id: this.ids.transaction++,
        title: g.title,
        listing_id: g.listingId,
        product_id: g.productId,
        sku: g.sku,
        quantity: g.quantity,
        priceCents: g.priceCents,
        shippingCents: g.shippingCents,
        is_digital: g.isDigital,
        shipping_method: g.shippingMethod,
        variations: g.variations,
        create_timestamp: now,
        paid_timestamp: paid ? now : null,
        shipped_timestamp: null,
        expected_ship_date: now + 5 * 86400
      }
    })
    const receipt: StoredReceipt = {
      receipt_id: receiptId,
      receipt_type: 0,
      seller_user_id: this.sellerUserId,
      buyer_user_id: this.ids.buyer++,
      buyer_email: spec.buyer_email ?? `buyer${receiptId % 100000}@example.com`,
      name: field("name"),
      first_line: field("first_line"),
      second_line: field("second_line"),
      city: field("city"),
      state: field("state"),
      zip: field("zip"),
      country_iso: field("country_iso"),
      status,
      is_paid: paid,
      is_shipped: false,
      is_gift: spec.is_gift ?? false,
      gift_message: spec.gift_message ?? "",
      message_from_buyer: spec.message_from_buyer ?? generateNote(this.random),
      payment_method: "cc",
      create_timestamp: now,
      update_timestamp: now,
      currency: spec.currency ?? buyer.currency,
      discountCents: spec.discount_cents ?? 0,
      taxCents: spec.tax_cents ?? 0,
      vatCents: 0,
      transactions,
      shipments: [],
      refunds: [],
      buyerEmails: [],
      shipmentRefusal: null
    }
    this.receipts.set(receiptId, receipt)
    if (paid) this.events.emit("order.paid", receipt)
    return receipt
  }

  find(id: number): StoredReceipt | undefined {
    return this.receipts.get(id)
  }

  editReceipt(receipt: StoredReceipt, patch: ReceiptPatch): StoredReceipt {
    const keys = ["name", "first_line", "second_line", "city", "state", "zip", "country_iso"] as const
    for (const key of keys) if (patch[key] !== undefined) receipt[key] = patch[key] ?? null
    if (patch.message_from_buyer !== undefined) receipt.message_from_buyer = patch.message_from_buyer
    if (patch.is_gift !== undefined) receipt.is_gift = patch.is_gift
    if (patch.gift_message !== undefined) receipt.gift_message = patch.gift_message
    if (patch.buyer_email !== undefined) receipt.buyer_email = patch.buyer_email
    for (const change of patch.transactions ?? []) {
      const t = receipt.transactions.find((x) => x.transaction_id === change.transaction_id)
      if (!t) throw new Error(`transaction ${change.transaction_id} is not on receipt ${receipt.receipt_id}`)
      if (change.quantity !== undefined) t.quantity = change.quantity
      if (change.variations !== undefined) t.variations = change.variations
    }
    this.touch(receipt)
    return receipt
  }

  pay(receipt: StoredReceipt): StoredReceipt {
    if (receipt.is_paid) return receipt
    receipt.is_paid = true
    receipt.status = "paid"
    for (const t of receipt.transactions) t.paid_timestamp = this.nowSeconds()
    this.touch(receipt)
    this.events.emit("order.paid", receipt)
    return receipt
  }

  /** Seller cancels: Etsy refunds a paid receipt in full; `is_paid` stays true (payment happened). */
  cancel(receipt: StoredReceipt, reason = "buyer_requested"): StoredReceipt {
    if (isCanceled(receipt)) return receipt
    receipt.status = "canceled"
    if (receipt.is_paid) {
      receipt.refunds.push({
        amountCents: grandtotalCents(receipt),
        created_timestamp: this.nowSeconds(),
        reason,
        note_from_issuer: null,
        status: "complete"
      })
    }
    this.touch(receipt)
    this.events.emit("order.canceled", receipt)
    return receipt
  }

  refund(receipt: StoredReceipt, amountCents: number | null): StoredReceipt {
    const total = grandtotalCents(receipt)
    const amount = amountCents === null ? total : Math.min(amountCents, total)
    receipt.refunds.push({
      amountCents: amount,
      created_timestamp: this.nowSeconds(),
      reason: "other",
      note_from_issuer: null,
      status: "complete"
    })
    const refunded = receipt.refunds.reduce((sum, r) => sum + r.amountCents, 0)
    receipt.status = refunded >= total ? "fully refunded" : "partially refunded"
    this.touch(receipt)
    return receipt
  }

  /**
   * createReceiptShipment's effect: a shipment (when tracking is given), the receipt shipped, the buyer
   * emailed (with the tracking linked when Etsy knows the carrier, and the seller's note).
   */
  ship(
    receipt: StoredReceipt,
    tracking: { tracking_code: string; carrier_name: string } | null,
    noteToBuyer: string | null = null
  ): StoredShipment | null {
    const now = this.nowSeconds()
    let shipment: StoredShipment | null = null
    if (tracking !== null) {
      shipment = { receipt_shipping_id: this.ids.shipment++, shipment_notification_timestamp: now, ...tracking }
      receipt.shipments.push(shipment)
      bump(this.stats.shipmentsByReceipt, receipt.receipt_id)
    }
    receipt.is_shipped = true
    if (receipt.status === "paid") receipt.status = "completed"
    for (const t of receipt.transactions) t.shipped_timestamp ??= now
    bump(this.stats.buyerEmailsByReceipt, receipt.receipt_id)
    receipt.buyerEmails.push({
      at: now,
      carrier_name: tracking?.carrier_name ?? null,
      tracking_code: tracking?.tracking_code ?? null,
      tracking_link: tracking === null ? null : trackingLinkFor(tracking.carrier_name, tracking.tracking_code),
      note_to_buyer: noteToBuyer
    })
    this.touch(receipt)
    this.events.emit("order.shipped", receipt)
    return shipment
  }

  /** updateShopReceipt: status flags only, no email. */
  setFlags(receipt: StoredReceipt, flags: { was_shipped?: boolean; was_paid?: boolean }): StoredReceipt {
    if (flags.was_paid === true) return this.pay(receipt)
    if (flags.was_shipped !== undefined) {
      receipt.is_shipped = flags.was_shipped
      if (flags.was_shipped && receipt.status === "paid") receipt.status = "completed"
      if (!flags.was_shipped && receipt.status === "completed") receipt.status = "paid"
    }
    this.touch(receipt)
    return receipt
  }

  /** Edits `count` random open receipts (a buyer updating their note while a client pages). */
  churn(count: number): void {
    const open = [...this.receipts.values()].filter((r) => !isCanceled(r) && !r.is_shipped)
    for (let i = 0; i < count && open.length > 0; i++) {
      const [receipt] = open.splice(Math.floor(this.random() * open.length), 1)
      if (receipt) this.editReceipt(receipt, { message_from_buyer: `Changed while being paged (${receipt.receipt_id})` })
    }
  }
}
