/** How the connector's batched calls split their items into requests. Pure. */

/**
 * Indices of `items` in rounds: round k holds the k-th item of each key, keys in their first order.
 * Items of one order in successive rounds: the later one sees what the earlier one did.
 */
export const roundsByKey = <A>(items: ReadonlyArray<A>, indices: ReadonlyArray<number>, key: (a: A) => string): Array<Array<number>> => {
  const rounds: Array<Array<number>> = []
  const seen = new Map<string, number>()
  for (const index of indices) {
    const k = key(items[index]!)
    const round = seen.get(k) ?? 0
    seen.set(k, round + 1)
    ;(rounds[round] ??= []).push(index)
  }
  return rounds
}

export const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
