// The simulator's in-memory world: drafts, orders, webhook subscriptions and the
// id generators. Handlers change it; the webhook engine listens to its events.
import type { Catalog, CatalogVariant } from "./catalog.js"
import type { CatalogStockLabel, DraftStatus, OrderStatus, PaymentStatus, PrintLocation, ShippingMethod, WebhookTopic } from "./enums.js"
import { makeRandom, makeUuid } from "./random.js"
import type { Json } from "./wire.js"

export interface PrintingOption {
  readonly location: PrintLocation
  readonly url: string
}

export interface LineRecord {
  readonly id: number
  readonly lineItemId: string
  variant: CatalogVariant
  quantity: number
  printingOptions: ReadonlyArray<PrintingOption>
  barcodeUrl: string | null
}

export type AddressRecord = Readonly<Record<string, string>>

export interface DraftRecord {
  readonly id: string
  readonly legacyNumber: number
  readonly referenceId: string | null
  readonly platform: string
  readonly storeId: string
  readonly createdMethod: string
  readonly requestId: string
  readonly address: AddressRecord | null
  readonly shippingMethod: ShippingMethod
  /** Set when the service moved the draft's shipping (Economy to an uncovered ZIP → Standard; coverage.ts). */
  readonly substitution?: { readonly from: string; readonly to: string; readonly reason: string }
  readonly billingOption: Json | null
  readonly iossNumber: string | null
  readonly giftMessageBody: string | null
  readonly labelUrls: ReadonlyArray<string>
  readonly agreeAtRisk: boolean
  readonly autoApprove: boolean
  lineItems: Array<LineRecord>
  status: DraftStatus
  isApproved: boolean
  approvedAt: number | null
  readonly createdAt: number
  updatedAt: number
  originOrderId: string | null
  /** False while the service cannot verify the shipping address (the draft's `shipping_verification_status`). */
  addressVerified: boolean
}

export interface TrackingRecord {
  readonly trackingNo: string
  readonly carrier: string
  readonly service: string
  readonly url: string
  type: "TRACKING_TYPE_PRIMARY" | "TRACKING_TYPE_SECONDARY" | "TRACKING_TYPE_OUTDATED"
  readonly updatedAt: number
}

export interface StageRecord {
  readonly id: string
  readonly name: OrderStatus
  readonly startedAt: number
  completedAt: number | null
}

export interface OrderRecord {
  readonly id: string
  readonly draft: DraftRecord
  status: OrderStatus
  paymentStatus: PaymentStatus
  readonly createdAt: number
  updatedAt: number
  paidAt: number | null
  shippedAt: number | null
  readonly trackings: Array<TrackingRecord>
  readonly stages: Array<StageRecord>
  heldFrom: OrderStatus | null
  cancelReason: string | null
  /** Boxes still to ship after the first (a split shipment, `splitPackages`): one more at each tick or ship-all. */
  pendingPackages?: number
}

export interface WebhookRecord {
  readonly id: string
  readonly topic: string
  readonly canonicalTopic: WebhookTopic
  status: string
  readonly name: string | null
  readonly version: string
  readonly deliveryUrl: string
  readonly storeId: string | null
  readonly createdAt: number
  updatedAt: number
}

/** Something a webhook subscription may be told about: a draft, and its order once checked out. */
export interface SimEvent {
  readonly topic: WebhookTopic
  readonly draft: DraftRecord
  readonly order?: OrderRecord
  /** The package a tracking or completed event is about. */
  readonly tracking?: TrackingRecord
  /** The variant a stock event is about. */
  readonly variant?: CatalogVariant
}

export class SimState {
  readonly drafts = new Map<string, DraftRecord>()
  readonly orders = new Map<string, OrderRecord>()
  readonly webhooks = new Map<string, WebhookRecord>()
  readonly draftsByReferenceId = new Map<string, number>()
  readonly teamId: string
  private random: () => number
  private legacyCounter = 100_000
  private lineCounter = 1_000_000
  private listeners: Array<(event: SimEvent) => void> = []
  /** Stock labels changed by the admin stock hook, with the seeded label each had: reset restores them. */
  private readonly seededStock = new Map<CatalogVariant, CatalogStockLabel>()

  constructor(readonly catalog: Catalog, readonly seed: number, readonly now: () => number) {
    this.random = makeRandom(seed * 104_729 + 3)
    this.teamId = `team-${makeUuid(makeRandom(seed)).slice(0, 8)}`
  }

  /** Forgets everything but the catalog; ids restart so a seed replays the same ids. */
  reset(): void {
    this.drafts.clear()
    this.orders.clear()
    this.webhooks.clear()
    this.draftsByReferenceId.clear()
    for (const [variant, label] of this.seededStock) variant.stockLabel = label
    this.seededStock.clear()
    this.random = makeRandom(this.seed * 104_729 + 3)
    this.legacyCounter = 100_000
    this.lineCounter = 1_000_000
  }

  newId(): string {
    return makeUuid(this.random)
  }

  nextLegacyNumber(): number {
    this.legacyCounter += 1
    return this.legacyCounter
  }

  nextLineId(): number {
    this.lineCounter += 1
    return this.lineCounter
  }

  randomInt(below: number): number {
    return Math.floor(this.random() * below)
  }

  addDraft(draft: DraftRecord): void {
    this.drafts.set(draft.id, draft)
    if (draft.referenceId !== null) {
      this.draftsByReferenceId.set(draft.referenceId, (this.draftsByReferenceId.get(draft.referenceId) ?? 0) + 1)
    }
  }

  draftByLegacyNumber(legacyNumber: number): DraftRecord | undefined {
    for (const draft of this.drafts.values()) if (draft.legacyNumber === legacyNumber) return draft
    return undefined
  }

  orderByLegacyNumber(legacyNumber: number): OrderRecord | undefined {
    for (const order of this.orders.values()) if (order.draft.legacyNumber === legacyNumber) return order
    return undefined
  }

  /** A variant's stock changes (the catalog, drafts and orders show it at once). */
  setStockLabel(variant: CatalogVariant, label: CatalogStockLabel): void {
    if (!this.seededStock.has(variant)) this.seededStock.set(variant, variant.stockLabel)
    variant.stockLabel = label
  }

  onEvent(listener: (event: SimEvent) => void): void {
    this.listeners.push(listener)
  }

  emit(event: SimEvent): void {
    for (const listener of this.listeners) listener(event)
  }
}
