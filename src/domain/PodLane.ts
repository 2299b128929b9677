/**
 * Priority lanes of the POD service's shared rate budget, highest first (ARCHITECTURE.md, rate
 * budget 3): `urgent` for webhook follow-ups and tracking reconciliation, `normal` for new
 * drafts, `background` for the catalog and reports. The client tags each request with one; the
 * budget serves them in this order.
 */
export type PodLane = "urgent" | "normal" | "background"

/** Every lane, highest priority first. */
export const lanesByPriority: ReadonlyArray<PodLane> = ["urgent", "normal", "background"]
