/**
 * A seeded day as plain data, for the pure report builder: two stores (acme
 * in USD, beta in EUR), orders in every state that matters, a duplicate draft,
 * an order shipped at the POD service but not fulfilled in the store, an
 * orphan draft, a store order podsync never pulled. The expected figures are
 * worked out by hand in scenario.test.ts.
 */
import { Either } from "effect"
import * as Money from "../../src/domain/Money.js"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import type { DraftListItem as Draft } from "../../src/pod/schemas/Drafts.js"
import type { OrderListItem as Order } from "../../src/pod/schemas/Orders.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import type { ExchangeRateTable } from "../../src/reports/ExchangeRates.js"
import { DEFAULT_REPORT_SETTINGS, type ReportInput, type ReportOrder } from "../../src/reports/ReportInput.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

export const DAY = "2026-11-20"
const at = (time: string, day = DAY) => Date.parse(`${day}T${time}:00Z`)
const iso = (time: string, day = DAY) => new Date(at(time, day)).toISOString()
export const money = (currency: string, amount: string) => Either.getOrThrow(Money.fromDecimalString(currency, amount))

interface Spec {
  readonly store: string
  /** Default: USD for acme, EUR for the others. */
  readonly currency?: string
  readonly id: string
  readonly total: string
  /** [sku, quantity] of the POD lines podsync drafted. */
  readonly lines?: ReadonlyArray<readonly [string, number]>
  readonly steps: ReadonlyArray<readonly [OrderState, string]>
  readonly held?: { readonly code: string; readonly message: string }
  readonly lastError?: { readonly message: string }
  readonly draftId?: string
  readonly podOrderId?: string
  readonly cancelled?: boolean
  readonly fulfilled?: boolean
  readonly financialStatus?: NormalizedOrder["financialStatus"]
  /** The packages podsync recorded: [tracking number, carrier, tracking page]. */
  readonly shipments?: ReadonlyArray<readonly [string, string, string]>
}

const currencyOf = (spec: Pick<Spec, "store" | "currency">) => spec.currency ?? (spec.store === "acme" ? "USD" : "EUR")

export const storeOrder = (
  spec: Pick<Spec, "store" | "currency" | "id" | "total" | "lines" | "cancelled" | "fulfilled" | "financialStatus">,
  createdAt: string
): NormalizedOrder =>
  sampleOrder({
    storeKey: spec.store,
    storeOrderId: spec.id,
    name: `#${spec.id}`,
    createdAt,
    updatedAt: createdAt,
    currency: currencyOf(spec),
    financialStatus: spec.financialStatus ?? "paid",
    fulfillmentStatus: spec.fulfilled ? "fulfilled" : "unfulfilled",
    cancelled: spec.cancelled ?? false,
    ...(spec.cancelled ? { cancelledAt: createdAt } : {}),
    total: money(currencyOf(spec), spec.total),
    lines: (spec.lines ?? [["TEE-BLK-M", 1]]).map(([sku, quantity], i) =>
      sampleLine({
        lineId: `${spec.id}-l${i}`,
        sku,
        variantId: undefined,
        title: sku,
        variantTitle: undefined,
        quantity,
        currentQuantity: quantity,
        fulfillableQuantity: spec.fulfilled ? 0 : quantity
      })
    )
  })

const order = (n: number, spec: Spec): ReportOrder => {
  const events = spec.steps.map(([to, time], i) => ({
    at: at(time),
    from: i === 0 ? null : spec.steps[i - 1]![0],
    to,
    reason: to === "held" ? spec.held?.message ?? null : `to ${to}`
  }))
  const lines = spec.lines ?? [["TEE-BLK-M", 1]]
  return {
    id: n,
    storeKey: spec.store,
    storeOrderId: spec.id,
    referenceId: ReferenceId.keyOf(spec.store, spec.id),
    state: spec.steps[spec.steps.length - 1]![0],
    heldReason: spec.held?.code ?? null,
    heldDetails: spec.held === undefined ? null : { message: spec.held.message },
    lastError: spec.lastError ?? null,
    podDraftId: spec.draftId ?? null,
    podOrderId: spec.podOrderId ?? null,
    podStatus: null,
    plannedLines: spec.draftId === undefined ? [] : lines.map(([, quantity], i) => ({ lineId: `${spec.id}-l${i}`, quantity })),
    order: storeOrder(spec, iso(spec.steps[0]![1])),
    events,
    shipments: (spec.shipments ?? []).map(([trackingNo, carrier, trackingUrl]) => ({
      trackingNo,
      carrier,
      trackingUrl,
      podOrderId: spec.podOrderId ?? null,
      pushState: "pushed" as const,
      createdAt: at(spec.steps.find(([state]) => state === "shipped")?.[1] ?? spec.steps[0]![1])
    }))
  }
}

const draft = (id: string, reference: string, created: string, status: NonNullable<Draft["status"]>, checkedOutAs?: string): Draft => ({
  order_id: id,
  reference_id: reference,
  store_id: `pod-${reference.split(":")[0]}`,
  order_date: created,
  status,
  is_label_attached: false,
  is_shipping_verification_bypassed: false,
  is_approved: true,
  auto_approve: true,
  ...(checkedOutAs === undefined ? {} : { origin_order_id: checkedOutAs })
})

const podOrder = (
  id: string,
  reference: string,
  created: string,
  status: NonNullable<Order["order_status"]>,
  total: Money.Money,
  extra: Partial<Order> = {}
): Order => ({
  order_id: id,
  reference_id: reference,
  store_id: `pod-${reference.split(":")[0]}`,
  order_date: created,
  order_status: status,
  order_total: total,
  ...extra
})

const SPECS: ReadonlyArray<Spec> = [
  {
    store: "acme",
    id: "1001",
    total: "40.00",
    lines: [["TEE-BLK-M", 2], ["MUG-11OZ", 1]],
    draftId: "D-1",
    podOrderId: "O-1",
    fulfilled: true,
    shipments: [["1Z001", "UPS", "https://www.ups.com/track?tracknum=1Z001"]],
    steps: [["pulled", "01:00"], ["ready", "01:01"], ["drafted", "01:10"], ["checked_out", "02:00"], ["in_production", "03:00"], [
      "shipped",
      "05:00"
    ], ["fulfilled", "05:30"]]
  },
  {
    store: "acme",
    id: "1002",
    total: "25.00",
    draftId: "D-2",
    podOrderId: "O-2",
    steps: [["pulled", "02:00"], ["ready", "02:01"], ["drafted", "02:20"], ["checked_out", "03:00"], ["in_production", "04:00"]]
  },
  { store: "acme", id: "1003", total: "31.00", draftId: "D-3a", steps: [["pulled", "03:00"], ["ready", "03:01"], ["drafted", "03:30"]] },
  {
    store: "acme",
    id: "1004",
    total: "20.00",
    held: { code: "unmatched", message: "no mapping row for SKU POSTER-A3" },
    steps: [["pulled", "04:00"], ["held", "04:00"]]
  },
  {
    store: "acme",
    id: "1005",
    total: "20.00",
    held: { code: "unmatched", message: "no mapping row for SKU POSTER-A2" },
    steps: [["pulled", "10:00"], ["held", "10:00"]]
  },
  {
    store: "acme",
    id: "1006",
    total: "20.00",
    held: { code: "unpaid", message: "financial status is pending" },
    financialStatus: "pending",
    steps: [["pulled", "11:00"], ["held", "11:00"]]
  },
  {
    store: "acme",
    id: "1007",
    total: "20.00",
    lastError: { message: "PodBadRequestError: data.address.zip_code: invalid" },
    steps: [["pulled", "06:00"], ["ready", "06:01"], ["failed", "06:05"]]
  },
  { store: "acme", id: "1008", total: "20.00", steps: [["pulled", "07:00"], ["ready", "07:01"]] },
  { store: "acme", id: "1009", total: "20.00", cancelled: true, steps: [["pulled", "08:00"], ["cancelled", "09:00"]] },
  {
    store: "acme",
    id: "1010",
    total: "20.00",
    draftId: "D-10",
    cancelled: true,
    steps: [["pulled", "09:00"], ["ready", "09:01"], ["drafted", "09:15"], ["cancel_pending", "12:00"]]
  },
  {
    store: "acme",
    id: "1011",
    total: "18.00",
    lines: [["CAP-RED", 1]],
    draftId: "D-11",
    podOrderId: "O-11",
    steps: [["pulled", "12:00"], ["ready", "12:01"], ["drafted", "12:05"], ["checked_out", "13:00"], ["pod_on_hold", "14:00"]]
  },
  {
    store: "beta",
    id: "2001",
    total: "30.00",
    lines: [["HOODIE-GRY-L", 1]],
    draftId: "D-21",
    podOrderId: "O-21",
    fulfilled: true,
    steps: [["pulled", "05:00"], ["ready", "05:01"], ["drafted", "05:40"], ["checked_out", "06:00"], ["shipped", "10:00"], [
      "fulfilled",
      "10:20"
    ]]
  },
  {
    store: "beta",
    id: "2002",
    total: "22.00",
    lines: [["HOODIE-GRY-L", 1], ["CAP-BLU", 2]],
    draftId: "D-22",
    steps: [["pulled", "06:00"], ["ready", "06:01"], ["drafted", "06:20"]]
  }
]

export const scenarioOrders: ReadonlyArray<ReportOrder> = SPECS.map((spec, i) => order(i + 1, spec))

/**
 * One more order of the day, shipped, with its POD order: for stores and currencies beyond the
 * seeded two (a JPY store, say). `steps` default to pulled 08:00 → drafted 08:10 → checked out
 * 09:00 → shipped 12:00.
 */
export const shippedOrder = (
  n: number,
  spec: { readonly store: string; readonly id: string; readonly currency: string; readonly total: string; readonly cost: string },
  steps: Spec["steps"] = [["pulled", "08:00"], ["ready", "08:01"], ["drafted", "08:10"], ["checked_out", "09:00"], ["shipped", "12:00"]]
): { readonly order: ReportOrder; readonly podOrder: Order } => {
  const reference = ReferenceId.keyOf(spec.store, spec.id)
  return {
    order: order(n, { ...spec, draftId: `D-${spec.id}`, podOrderId: `O-${spec.id}`, steps }),
    podOrder: podOrder(`O-${spec.id}`, reference, iso("09:00"), "VENDOR_ORDER_STATUS_SHIPPED", money(spec.currency, spec.cost), {
      shipped_at: iso("12:00"),
      tracking_no: `TRK${spec.id}`
    })
  }
}

/** The acme order podsync never pulled: only the store knows it. */
const neverPulled = storeOrder({ store: "acme", id: "1012", total: "15.00" }, iso("20:00"))

export const scenarioInput = (overrides: Partial<ReportInput> = {}): ReportInput => ({
  period: { from: at("00:00"), to: at("00:00", "2026-11-21"), timezone: "UTC", label: DAY },
  generatedAt: at("06:00", "2026-11-21"),
  stores: [
    { key: "acme", name: "Acme Shirts", podStoreId: "pod-acme", eligibleFinancialStatuses: ["PAID", "PARTIALLY_REFUNDED"] },
    { key: "beta", name: "Beta Mugs", podStoreId: "pod-beta", eligibleFinancialStatuses: ["PAID"] }
  ],
  store: null,
  configuredStoreKeys: ["acme", "beta"],
  settings: DEFAULT_REPORT_SETTINGS,
  orders: scenarioOrders,
  pod: {
    drafts: [
      draft("D-1", "acme:1001", iso("01:10"), "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "O-1"),
      draft("D-2", "acme:1002", iso("02:20"), "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "O-2"),
      draft("D-3a", "acme:1003", iso("03:30"), "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"),
      draft("D-3b", "acme:1003", iso("03:31"), "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"),
      draft("D-10", "acme:1010", iso("09:15"), "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"),
      draft("D-11", "acme:1011", iso("12:05"), "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "O-11"),
      draft("D-99", "acme:999999", iso("15:00"), "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"),
      draft("D-old", "acme:555", iso("15:00", "2026-11-10"), "VENDOR_ORDER_DRAFT_STATUS_DELETED"),
      draft("D-21", "beta:2001", iso("05:40"), "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "O-21"),
      draft("D-22", "beta:2002", iso("06:20"), "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", "O-22")
    ],
    orders: [
      podOrder("O-1", "acme:1001", iso("02:00"), "VENDOR_ORDER_STATUS_SHIPPED", money("USD", "21.50"), {
        shipped_at: iso("05:00"),
        tracking_no: "1Z001"
      }),
      podOrder("O-2", "acme:1002", iso("03:00"), "VENDOR_ORDER_STATUS_SHIPPED", money("USD", "12.00"), {
        shipped_at: iso("08:00"),
        tracking_no: "1Z002"
      }),
      podOrder("O-11", "acme:1011", iso("13:00"), "VENDOR_ORDER_STATUS_ON_HOLD", money("USD", "9.00")),
      // podsync has no shipment row for beta:2001: the shipped list reads the POD order's tracking.
      podOrder("O-21", "beta:2001", iso("06:00"), "VENDOR_ORDER_STATUS_SHIPPED", money("EUR", "14.25"), {
        shipped_at: iso("10:00"),
        tracking_no: "DHL21",
        tracking_company: "DHL",
        tracking_link: "https://www.dhl.com/track?id=DHL21"
      }),
      podOrder("O-22", "beta:2002", iso("07:00"), "VENDOR_ORDER_STATUS_IN_PRODUCTION", money("EUR", "10.00"), { paid_at: iso("09:00") })
    ],
    error: null
  },
  storeSnapshots: [
    {
      storeKey: "acme",
      orders: [...SPECS.filter((s) => s.store === "acme").map((s, i) => storeOrder(s, scenarioOrders[i]!.order.createdAt)), neverPulled],
      unknown: ["999999"],
      error: null
    },
    {
      storeKey: "beta",
      orders: SPECS.filter((s) => s.store === "beta").map((s) =>
        storeOrder(s, scenarioOrders.find((o) => o.storeOrderId === s.id)!.order.createdAt)
      ),
      unknown: [],
      error: null
    }
  ],
  ...overrides
})

const gamma = [
  shippedOrder(101, { store: "gamma", id: "3001", currency: "JPY", total: "4500", cost: "2100" }),
  shippedOrder(102, { store: "gamma", id: "3002", currency: "JPY", total: "3300", cost: "1500" })
]

/** The seeded day with a third store selling in yen (two shipped orders), and the exchange-rate table given. */
export const multiCurrencyInput = (rates: ExchangeRateTable | null): ReportInput => {
  const base = scenarioInput()
  return {
    ...base,
    stores: [...base.stores, { key: "gamma", name: "Gamma Prints", podStoreId: "pod-gamma", eligibleFinancialStatuses: ["PAID"] }],
    configuredStoreKeys: [...base.configuredStoreKeys, "gamma"],
    settings: { ...DEFAULT_REPORT_SETTINGS, exchangeRates: rates },
    orders: [...base.orders, ...gamma.map((g) => g.order)],
    pod: { ...base.pod, orders: [...base.pod.orders, ...gamma.map((g) => g.podOrder)] },
    storeSnapshots: [...base.storeSnapshots, { storeKey: "gamma", orders: gamma.map((g) => g.order.order), unknown: [], error: null }]
  }
}

/** Two days after the seeded one: no order came, moved or shipped (the stores list only older orders); the open ones still wait. */
export const quietDayInput = (): ReportInput =>
  scenarioInput({
    period: { from: at("00:00", "2026-11-22"), to: at("00:00", "2026-11-23"), timezone: "UTC", label: "2026-11-22" },
    generatedAt: at("06:00", "2026-11-23"),
    storeSnapshots: scenarioInput().storeSnapshots.map((s) => ({
      ...s,
      orders: [storeOrder({ store: s.storeKey, id: "1", total: "1" }, "2026-11-01T00:00:00.000Z")]
    }))
  })
