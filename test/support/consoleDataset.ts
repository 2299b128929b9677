/**
 * A realistic dataset for the console, seeded through the repos before a daemon starts: four stores
 * (one per platform), an order in every state, money in USD and EUR, a shipped order with two
 * packages, long buyer names and notes, and a buyer-typed formula as an order name.
 */
import { Effect, Either } from "effect"
import { sql } from "kysely"
import { Db } from "../../src/db/Db.js"
import * as Money from "../../src/domain/Money.js"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import { ORDER_STATES, type OrderState } from "../../src/domain/OrderState.js"
import { OrdersRepo, type TransitionChange } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { sampleLine, sampleOrder } from "./orders.js"

export const STORES = [
  { key: "demo-shopify", platform: "shopify", currency: "USD", name: "Acme Shirts & Co" },
  { key: "demo-woocommerce", platform: "woocommerce", currency: "EUR", name: "Atelier Nord Boutique" },
  { key: "demo-etsy", platform: "etsy", currency: "USD", name: "Handmade Gifts by Maria" },
  { key: "demo-jsonfeed", platform: "jsonfeed", currency: "EUR", name: "Feed Store Europe" }
] as const

export const LONG_BUYER = "Maximiliane Theodora von Hohenzollern-Sigmaringen-Wittelsbach"
export const LONG_NOTE =
  "Please gift-wrap each shirt separately and leave the parcel with the neighbour at number 17 (Mrs. Oberhausen-Delacroix) if nobody is home; the doorbell does not work."
export const FORMULA_NAME = `=HYPERLINK("http://x","y")`
export const REPLICA = "vm:12197:c0ffee12"

const money = (currency: string, text: string) => Either.getOrThrow(Money.fromDecimalString(currency, text))

type Step = { readonly to: OrderState; readonly change?: Partial<TransitionChange> }

/** One seeded order: what a test looks for on the pages. */
export interface SeededOrder {
  readonly id: number
  readonly reference: string
  readonly state: OrderState
  readonly name: string
  readonly email: string
  readonly storeKey: string
  readonly podDraftId?: string
  readonly podOrderId?: string
}

export interface Dataset {
  readonly orders: ReadonlyArray<SeededOrder>
  /** The shipped EUR order with two packages, POD warnings and money. */
  readonly twoPackages: SeededOrder & { readonly tracking: readonly [string, string] }
  readonly formula: SeededOrder
  readonly byState: (state: OrderState) => SeededOrder
}

const walk: Record<OrderState, (n: string) => ReadonlyArray<Step>> = {
  pulled: () => [],
  held: () => [{ to: "held", change: { held: { code: "unmatched", details: { sku: "NOT-MAPPED-HOODIE-XXL" } } } }],
  ready: () => [{ to: "ready" }],
  in_doubt: () => [{ to: "ready" }, { to: "in_doubt", change: { reason: "the POD service did not answer the draft request in time" } }],
  drafted: (n) => [{ to: "ready" }, drafted(n)],
  checked_out: (n) => [{ to: "ready" }, drafted(n), checkedOut(n)],
  in_production: (n) => [{ to: "ready" }, drafted(n), checkedOut(n), { to: "in_production" }],
  shipped: (n) => [{ to: "ready" }, drafted(n), checkedOut(n), { to: "in_production" }, { to: "shipped" }],
  fulfilled: (n) => [{ to: "ready" }, drafted(n), checkedOut(n), { to: "in_production" }, { to: "shipped" }, { to: "fulfilled" }],
  cancelled: () => [{ to: "cancelled", change: { reason: "cancelled at the store by the buyer" } }],
  cancel_pending: (n) => [{ to: "ready" }, drafted(n), checkedOut(n), {
    to: "cancel_pending",
    change: { reason: "cancelled at the store after the POD order was placed" }
  }],
  pod_cancelled: (n) => [{ to: "ready" }, drafted(n), { to: "pod_cancelled", change: { reason: "cancelled at the POD service" } }],
  pod_on_hold: (n) => [{ to: "ready" }, drafted(n), checkedOut(n), {
    to: "pod_on_hold",
    change: { reason: "on hold at the POD service: address could not be verified", podStatus: "ON_HOLD" }
  }],
  not_pod: () => [{ to: "not_pod", change: { reason: "no line is printed on demand" } }],
  failed: () => [{ to: "ready" }, {
    to: "failed",
    change: {
      reason: "the POD service refused the draft",
      lastError: { message: "design file unreachable (HTTP 404)", apiKey: "sk_live_never_shown" }
    }
  }]
}

function drafted(n: string): Step {
  return {
    to: "drafted",
    change: {
      reason: "draft created",
      podDraftId: `DRAFT-${n}`,
      data: { draftId: `DRAFT-${n}`, warnings: ["address line 2 is longer than 35 characters and will be cut"] }
    }
  }
}
function checkedOut(n: string): Step {
  return {
    to: "checked_out",
    change: { reason: "checked out by anna", actor: "console:anna", podOrderId: `ORDER-${n}`, podStatus: "PAID" }
  }
}

/** Seeds the dataset; the orders are left due never, so a daemon started on it does not move them. */
export const seedConsoleDataset = (nowMs: number) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const shipments = yield* ShipmentsRepo
    const db = yield* Db
    const orders: Array<SeededOrder> = []
    const seed = (
      state: OrderState,
      i: number,
      overrides: Partial<NormalizedOrder> = {}
    ) =>
      Effect.gen(function*() {
        const store = STORES[i % STORES.length]!
        const storeOrderId = String(7_770_100 + i)
        const n = `${store.platform}-${overrides.storeOrderId ?? 1100 + i}`
        const created = new Date(nowMs - (i + 1) * 3_600_000).toISOString()
        const email = `buyer${i}.${state.replace("_", "")}@example.${store.currency === "EUR" ? "de" : "com"}`
        const order = sampleOrder({
          storeKey: store.key,
          platform: store.platform,
          storeOrderId,
          name: `#${1100 + i}`,
          createdAt: created,
          updatedAt: created,
          currency: store.currency,
          total: money(store.currency, `${(19.9 + i * 7.35).toFixed(2)}`),
          email,
          financialStatus: "paid",
          cancelled: state === "cancelled",
          shipTo: { ...sampleOrder().shipTo!, name: i % 3 === 0 ? LONG_BUYER : `Buyer ${i} Example` },
          note: i % 4 === 0 ? LONG_NOTE : undefined,
          lines: [
            sampleLine({
              lineId: `line-${storeOrderId}-1`,
              // A held order's SKU is in no mapping: re-planned when the daemon loads the mappings, it stays held.
              // A not-POD order's one line is the gift wrap every mapping ignores.
              sku: state === "held" ? "NOT-MAPPED-HOODIE-XXL" : state === "not_pod" ? "GIFT-WRAP" : "UTS01-FOREST-S",
              title: "Forest Tee — Limited Winter Edition, organic cotton",
              variantTitle: "Forest / S",
              attributes: [{ key: "design_front", value: "https://cdn.example.com/designs/forest-front.png" }]
            })
          ],
          ...overrides
        })
        const reference = `${store.key}:${order.storeOrderId}`
        const { id } = yield* repo.upsertPulled(order, reference)
        let from: OrderState = "pulled"
        let podDraftId: string | undefined
        let podOrderId: string | undefined
        for (const step of walk[state](n)) {
          yield* repo.transition(id, from, step.to, {
            reason: `${step.to}`,
            actor: REPLICA,
            ...step.change,
            nextAttemptAt: null
          })
          podDraftId = step.change?.podDraftId ?? podDraftId
          podOrderId = step.change?.podOrderId ?? podOrderId
          from = step.to
        }
        const seeded: SeededOrder = {
          id,
          reference,
          state,
          name: order.name,
          email,
          storeKey: store.key,
          ...(podDraftId ? { podDraftId } : {}),
          ...(podOrderId ? { podOrderId } : {})
        }
        orders.push(seeded)
        return seeded
      })

    for (const [i, state] of ORDER_STATES.entries()) {
      if (state !== "shipped") yield* seed(state, i)
    }
    // The shipped EUR order: two packages, two lines, warnings, money.
    const shipped = yield* seed("shipped", 1, {
      storeOrderId: "7770999",
      name: "#A1042",
      shipTo: { ...sampleOrder().shipTo!, name: LONG_BUYER, company: "Atelier Nord GmbH" },
      note: LONG_NOTE,
      lines: [
        sampleLine({
          lineId: "line-7770999-1",
          sku: "UTS01-FOREST-S",
          title: "Forest Tee — Limited Winter Edition",
          variantTitle: "Forest / S"
        }),
        sampleLine({
          lineId: "line-7770999-2",
          sku: "UTS01-DARKHE-M",
          title: "Dark Heather Tee",
          variantTitle: "Dark Heather / M",
          quantity: 1,
          currentQuantity: 1,
          fulfillableQuantity: 1,
          attributes: []
        })
      ]
    })
    const tracking = ["9400111899223197428490", "1Z999AA10123456784"] as const
    yield* shipments.record(shipped.id, shipped.podOrderId!, { number: tracking[0], carrier: "USPS" })
    yield* shipments.record(shipped.id, shipped.podOrderId!, {
      number: tracking[1],
      carrier: "UPS",
      url: `https://www.ups.com/track?tracknum=${tracking[1]}`
    })
    const fulfilled = orders.find((o) => o.state === "fulfilled")!
    yield* shipments.record(fulfilled.id, fulfilled.podOrderId!, { number: "LX123456789DE", carrier: "DHL" })
    // A buyer-typed formula as the order's name (a spreadsheet would run it).
    const formula = yield* seed("drafted", 20, { storeOrderId: "7770998", name: FORMULA_NAME })
    // An order not yet paid at the store: held, but counted apart from what needs a person.
    yield* seed("held", 29, { financialStatus: "pending" })
    // A few more of each currency in the states money counts, so the overview has figures.
    for (let i = 21; i < 29; i++) yield* seed(i % 2 === 0 ? "fulfilled" : "in_production", i)
    // Nothing is due: the daemon started on this data shows it as seeded.
    yield* db.use((k) => sql`update store_orders set next_attempt_at = null`.execute(k))
    const twoPackages = { ...shipped, tracking }
    return {
      orders,
      twoPackages,
      formula,
      byState: (state: OrderState) => orders.find((o) => o.state === state)!
    } satisfies Dataset
  })
