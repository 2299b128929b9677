/**
 * Seeded randomness shared by the simulators: fixtures, fault draws and churn are a pure function
 * of the seed and the order of requests, so a run can be replayed.
 */

export type Random = () => number

/** mulberry32: small, fast and good enough for fixtures. */
export const seededRandom = (seed: number): Random => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One of `items`, uniformly (the list is never empty in fixtures). */
export const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)] as A

/** A whole number in [min, max]. */
export const int = (random: Random, min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
