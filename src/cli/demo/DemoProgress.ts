import { ORDER_STATES, type OrderState } from "../../domain/OrderState.js"
import type { OrderKind } from "./OrderPlan.js"

/**
 * Where the demo stands, computed from the daemon's own records (pure): the
 * orders per state and per store, the held ones with their reasons, and
 * whether every generated order has reached the end the demo expects of it.
 * An order is known by its store and its id in that store: two stores can
 * give the same id to different orders.
 */

/** An order the generator placed in one of the demo's stores. */
export interface GeneratedOrder {
  readonly storeKey: string
  readonly storeOrderId: string
  /** The store's name for it, e.g. "#1004". */
  readonly name: string
  readonly kind: OrderKind
}

/** An order as the daemon holds it. */
export interface DaemonOrder {
  readonly storeKey: string
  readonly storeOrderId: string
  readonly state: OrderState
  readonly heldReason: string | null
  readonly heldMessage: string | null
}

export interface HeldOrder {
  readonly storeKey: string
  readonly name: string
  readonly reason: string
  readonly message: string | null
}

/** One store's part of the demo. */
export interface StoreProgress {
  readonly storeKey: string
  readonly generated: number
  readonly settled: number
  /** The store's orders per state, as `byState`. */
  readonly byState: ReadonlyArray<readonly [string, number]>
}

export interface Progress {
  readonly planned: number
  readonly generated: number
  /** Per store, in the order given (the configuration's). */
  readonly stores: ReadonlyArray<StoreProgress>
  /** Every state with orders, in the pipeline's order; "not pulled yet" first. */
  readonly byState: ReadonlyArray<readonly [string, number]>
  readonly heldByReason: ReadonlyArray<readonly [string, number]>
  readonly held: ReadonlyArray<HeldOrder>
  /** Generated orders at the end the demo expects of them. */
  readonly settled: number
  /** Every order generated and settled. */
  readonly done: boolean
  /** Generated orders not (yet) where the demo expects them, with where they are. */
  readonly outstanding: ReadonlyArray<
    { readonly storeKey: string; readonly name: string; readonly kind: OrderKind; readonly state: string }
  >
}

export const NOT_PULLED = "not pulled yet"

/**
 * The end the demo expects: a mapped order is fulfilled (drafted, shipped,
 * tracking pushed to the store); one with an unmapped item waits for a
 * mapping row (held: unmatched); the cancelled one is cancelled, or, when the
 * daemon had already drafted it, waits for the seller to cancel the draft by
 * hand (cancel_pending: the POD API has no cancel call).
 */
export const isSettled = (kind: OrderKind, order: DaemonOrder | undefined): boolean => {
  if (order === undefined) return false
  switch (kind) {
    case "mapped":
      return order.state === "fulfilled"
    case "unmapped":
      return order.state === "held" && order.heldReason === "unmatched"
    case "cancelled":
      return order.state === "cancelled" || order.state === "cancel_pending"
  }
}

const countBy = (values: ReadonlyArray<string>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}

/** The key of an order among every store's: its store and its id there. */
const orderKey = (order: { readonly storeKey: string; readonly storeOrderId: string }): string =>
  `${order.storeKey}\u0000${order.storeOrderId}`

/** The states with orders, in the pipeline's order; "not pulled yet" first. */
const statesOf = (generated: ReadonlyArray<GeneratedOrder>, orders: ReadonlyArray<DaemonOrder>, pulled: ReadonlySet<string>) => {
  const states = countBy([
    ...generated.filter((g) => !pulled.has(orderKey(g))).map(() => NOT_PULLED),
    ...orders.map((o) => o.state)
  ])
  return [NOT_PULLED, ...ORDER_STATES].flatMap((state) => {
    const count = states.get(state)
    return count === undefined ? [] : [[state, count] as const]
  })
}

/**
 * `storeKeys`: the demo's stores in the order to show them (default: as
 * their orders were generated).
 */
export const progressOf = (
  planned: number,
  generated: ReadonlyArray<GeneratedOrder>,
  orders: ReadonlyArray<DaemonOrder>,
  storeKeys: ReadonlyArray<string> = [...new Set(generated.map((g) => g.storeKey))]
): Progress => {
  const byKey = new Map(orders.map((o) => [orderKey(o), o]))
  const pulled = new Set(byKey.keys())
  const names = new Map(generated.map((g) => [orderKey(g), g.name]))
  const heldOrders = orders.filter((o) => o.state === "held")
  const heldByReason = [...countBy(heldOrders.map((o) => o.heldReason ?? "unknown"))].sort(([a], [b]) => a.localeCompare(b))
  const outstanding = generated
    .filter((g) => !isSettled(g.kind, byKey.get(orderKey(g))))
    .map((g) => ({ storeKey: g.storeKey, name: g.name, kind: g.kind, state: byKey.get(orderKey(g))?.state ?? NOT_PULLED }))
  const stores = storeKeys.map((storeKey): StoreProgress => {
    const mine = generated.filter((g) => g.storeKey === storeKey)
    return {
      storeKey,
      generated: mine.length,
      settled: mine.length - outstanding.filter((o) => o.storeKey === storeKey).length,
      byState: statesOf(mine, orders.filter((o) => o.storeKey === storeKey), pulled)
    }
  })
  return {
    planned,
    generated: generated.length,
    stores,
    byState: statesOf(generated, orders, pulled),
    heldByReason,
    held: heldOrders.map((o) => ({
      storeKey: o.storeKey,
      name: names.get(orderKey(o)) ?? o.storeOrderId,
      reason: o.heldReason ?? "unknown",
      message: o.heldMessage
    })),
    settled: generated.length - outstanding.length,
    done: generated.length === planned && outstanding.length === 0,
    outstanding
  }
}
