/** How the connector's batched calls split their items into requests. Pure. */

/** An item of a batched call with its index in the call's input, where its result goes. */
export interface Indexed<A> {
  readonly index: number
  readonly item: A
}

/**
 * `entries` in rounds: round k holds the k-th entry of each key, keys in their first order.
 * Items of one order in successive rounds: the later one sees what the earlier one did.
 */
export const roundsByKey = <A>(entries: ReadonlyArray<Indexed<A>>, key: (a: A) => string): Array<Array<Indexed<A>>> => {
  const rounds: Array<Array<Indexed<A>>> = []
  const seen = new Map<string, number>()
  for (const entry of entries) {
    const k = key(entry.item)
    const round = seen.get(k) ?? 0
    seen.set(k, round + 1)
    ;(rounds[round] ??= []).push(entry)
  }
  return rounds
}

export const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
