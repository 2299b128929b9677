import { lanesByPriority, type PodLane } from "../domain/PodLane.js"

/** The budget's lanes are the POD request lanes (the domain names them once). */
export type Lane = PodLane
export { lanesByPriority }

/** A larger rank is served first; ranks are also what replicas advertise to each other. */
export const laneRank = (lane: Lane): number => {
  switch (lane) {
    case "urgent":
      return 2
    case "normal":
      return 1
    case "background":
      return 0
  }
}

export const isLane = (value: unknown): value is Lane => value === "urgent" || value === "normal" || value === "background"

/** The rank of the most urgent lane with waiters, or -1 when nobody waits. */
export const topWaitingRank = (waitingByLane: Readonly<Record<Lane, number>>): number => {
  for (const lane of lanesByPriority) if (waitingByLane[lane] > 0) return laneRank(lane)
  return -1
}

/** How many of these waiters are in lanes of at least `minRank`. */
export const waitingFromRank = (waitingByLane: Readonly<Record<Lane, number>>, minRank: number): number =>
  lanesByPriority.reduce((sum, lane) => (laneRank(lane) >= minRank ? sum + waitingByLane[lane] : sum), 0)

/** Who still waits once `granted` waiters were served, most urgent lanes first. */
export const afterGrants = (waitingByLane: Readonly<Record<Lane, number>>, granted: number): Record<Lane, number> => {
  const left = { ...waitingByLane }
  let toServe = granted
  for (const lane of lanesByPriority) {
    const served = Math.min(toServe, left[lane])
    left[lane] -= served
    toServe -= served
  }
  return left
}
