/**
 * Where a shipment's push to the store stands (shipments.push_state): one
 * push per (order, tracking number), exactly once.
 */
export const PUSH_STATES = ["pending", "in_doubt", "pushed", "on_hold", "skipped", "rejected"] as const
export type PushState = (typeof PUSH_STATES)[number]
