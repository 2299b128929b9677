/**
 * A store's order history: an order put in with `placedAt` (ISO-8601, in the past) was placed and
 * last changed then, so a client that reads orders back N days finds it where a real store keeps
 * it. Every store simulator takes it at `POST /__sim/orders` (and in a bulk template).
 */

/** The time an order was placed, in ms: `placedAt` when given and readable (in whole seconds, as stores keep it), else `nowMs` as it is. */
export const placedAtMs = (placedAt: unknown, nowMs: number): number => {
  const parsed = typeof placedAt === "string" ? Date.parse(placedAt) : Number.NaN
  return Number.isNaN(parsed) || parsed > nowMs ? nowMs : Math.floor(parsed / 1000) * 1000
}

/** Whether `placedAt`, when given, is a time this simulator takes: an ISO-8601 time not in the future. */
export const placedAtProblem = (placedAt: unknown, nowMs: number): string | null =>
  placedAt === undefined || (typeof placedAt === "string" && !Number.isNaN(Date.parse(placedAt)) && Date.parse(placedAt) <= nowMs)
    ? null
    : "placedAt must be an ISO-8601 time, not in the future"
