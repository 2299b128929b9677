// Seeded randomness for the POD simulator: the catalog and every id it hands
// out are a pure function of the seed and the order of requests.

export { int as pickInt, seededRandom as makeRandom } from "../kit/random.js"

/** FNV-1a 32-bit hash of a string. */
export const hashString = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash >>> 0
}

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
