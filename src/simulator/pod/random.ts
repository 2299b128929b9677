// Seeded randomness for the POD simulator: the catalog and every id it hands
// out are a pure function of the seed and the order of requests.

/** mulberry32: small, fast, good enough for fixtures. */
export const makeRandom = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** FNV-1a 32-bit hash of a string. */
export const hashString = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash >>> 0
}

export const pickInt = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1))

export const pickOne = <A>(random: () => number, items: ReadonlyArray<A>): A => {
  const item = items[Math.floor(random() * items.length)]
  if (item === undefined) throw new Error("pickOne on an empty list")
  return item
}

const HEX = "0123456789abcdef"

/** A UUID-shaped opaque id drawn from the given generator. */
export const makeUuid = (random: () => number): string => {
  let out = ""
  for (let i = 0; i < 32; i++) {
    let digit = Math.floor(random() * 16)
    if (i === 12) digit = 4
    if (i === 16) digit = 8 + (digit % 4)
    out += HEX[digit]
    if (i === 7 || i === 11 || i === 15 || i === 19) out += "-"
  }
  return out
}
