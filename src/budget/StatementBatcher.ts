/**
 * Gathers writes that arrive close together so that one statement carries them all (group
 * commit). A write waits for the end of the current event-loop turn (`setImmediate`), so every
 * write submitted in that turn goes out together; while a statement of this batcher runs, the
 * writes submitted meanwhile wait for it and go out together in the next one. At most
 * `maxItems` go in one statement; the rest follow in the next.
 *
 * No timer by default: the delay is one turn of the event loop, or one statement when the
 * batcher is busy, never a sleep, so tests on Effect's TestClock see no difference, and an idle
 * batcher adds no latency beyond the turn. A batcher of writes nobody waits on (the inbox's
 * "processed" marks) may gather for `gatherMs` instead, so that a moderate flow makes a few
 * large statements rather than many small ones.
 *
 * Each submitter's promise settles when the statement carrying its item does: resolved when it
 * succeeds (with the item's own answer, for an answering batcher), rejected with its cause when
 * it fails (every item in a failed statement fails; the next statement starts afresh). A
 * submitter that stops waiting (an interrupted fiber) does not withdraw its item, so the
 * statement still carries everybody's writes.
 */
export interface StatementBatcher<T, R = void> {
  readonly submit: (item: T) => Promise<R>
  /** Items submitted and not yet settled: queued for a statement, or in the one that runs. */
  readonly waiting: () => number
}

interface Pending<T, R> {
  readonly item: T
  readonly resolve: (answer: R) => void
  readonly reject: (cause: unknown) => void
}

/**
 * A batcher whose statement answers each item: `write` returns one answer per item, in the
 * items' order (an inbox insert says which deliveries were new).
 */
export const makeAnsweringBatcher = <T, R>(
  write: (items: ReadonlyArray<T>) => Promise<ReadonlyArray<R>>,
  options: { readonly maxItems?: number; readonly gatherMs?: number } = {}
): StatementBatcher<T, R> => {
  const maxItems = Math.max(1, options.maxItems ?? 500)
  const gatherMs = options.gatherMs ?? 0
  let pending: Array<Pending<T, R>> = []
  let inFlight = 0
  let scheduled = false
  let writing = false

  const schedule = (): void => {
    if (scheduled || writing || pending.length === 0) return
    scheduled = true
    if (gatherMs > 0) setTimeout(flush, gatherMs)
    else setImmediate(flush)
  }

  const flush = (): void => {
    scheduled = false
    const batch = pending.slice(0, maxItems)
    pending = pending.slice(maxItems)
    writing = true
    inFlight = batch.length
    // `then` first, so that a write that throws before returning its promise fails its batch too.
    Promise.resolve()
      .then(() => write(batch.map((entry) => entry.item)))
      .then(
        (answers) => {
          if (answers.length !== batch.length) throw new Error(`a statement answered ${answers.length} of ${batch.length} items`)
          batch.forEach((entry, index) => entry.resolve(answers[index] as R))
        }
      )
      .catch((cause: unknown) => {
        for (const entry of batch) entry.reject(cause)
      })
      .finally(() => {
        writing = false
        inFlight = 0
        schedule()
      })
  }

  return {
    submit: (item) =>
      new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject })
        schedule()
      }),
    waiting: () => pending.length + inFlight
  }
}

/** A batcher of writes that answer nothing but success or failure (the rate budget's releases). */
export const makeStatementBatcher = <T>(
  write: (items: ReadonlyArray<T>) => Promise<unknown>,
  options: { readonly maxItems?: number; readonly gatherMs?: number } = {}
): StatementBatcher<T> =>
  makeAnsweringBatcher<T, void>(async (items) => {
    await write(items)
    return items.map(() => undefined)
  }, options)
