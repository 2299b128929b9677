import { ORDER_STATES, type OrderState } from "../../domain/OrderState.js"
import type { OrderKind } from "./OrderPlan.js"

/**
 * Where the demo stands, computed from the daemon's own records (pure): the
 * orders per state, the held ones with their reasons, and whether every
 * generated order has reached the end the demo expects of it.
 */

/** An order the generator placed in the store. */
export interface GeneratedOrder {
  readonly storeOrderId: string
  /** The store's name for it, e.g. "#1004". */
  readonly name: string
  readonly kind: OrderKind
}

/** An order as the daemon holds it. */
export interface DaemonOrder {
  readonly storeOrderId: string
  readonly state: OrderState
  readonly heldReason: string | null
  readonly heldMessage: string | null
}

export interface HeldOrder {
  readonly name: string
  readonly reason: string
  readonly message: string | null
}

export interface Progress {
  readonly planned: number
  readonly generated: number
  /** Every state with orders, in the pipeline's order; "not pulled yet" first. */
  readonly byState: ReadonlyArray<readonly [string, number]>
  readonly heldByReason: ReadonlyArray<readonly [string, number]>
  readonly held: ReadonlyArray<HeldOrder>
  /** Generated orders at the end the demo expects of them. */
  readonly settled: number
  /** Every order generated and settled. */
  readonly done: boolean
  /** Generated orders not (yet) where the demo expects them, with where they are. */
  readonly outstanding: ReadonlyArray<{ readonly name: string; readonly kind: OrderKind; readonly state: string }>
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

export const progressOf = (
  planned: number,
  generated: ReadonlyArray<GeneratedOrder>,
  orders: ReadonlyArray<DaemonOrder>
): Progress => {
  const byId = new Map(orders.map((o) => [o.storeOrderId, o]))
  const names = new Map(generated.map((g) => [g.storeOrderId, g.name]))
  const states = countBy([
    ...generated.filter((g) => !byId.has(g.storeOrderId)).map(() => NOT_PULLED),
    ...orders.map((o) => o.state)
  ])
  const byState = [NOT_PULLED, ...ORDER_STATES].flatMap((state) => {
    const count = states.get(state)
    return count === undefined ? [] : [[state, count] as const]
  })
  const heldOrders = orders.filter((o) => o.state === "held")
  const heldByReason = [...countBy(heldOrders.map((o) => o.heldReason ?? "unknown"))].sort(([a], [b]) => a.localeCompare(b))
  const outstanding = generated
    .filter((g) => !isSettled(g.kind, byId.get(g.storeOrderId)))
    .map((g) => ({ name: g.name, kind: g.kind, state: byId.get(g.storeOrderId)?.state ?? NOT_PULLED }))
  return {
    planned,
    generated: generated.length,
    byState,
    heldByReason,
    held: heldOrders.map((o) => ({
      name: names.get(o.storeOrderId) ?? o.storeOrderId,
      reason: o.heldReason ?? "unknown",
      message: o.heldMessage
    })),
    settled: generated.length - outstanding.length,
    done: generated.length === planned && outstanding.length === 0,
    outstanding
  }
}
