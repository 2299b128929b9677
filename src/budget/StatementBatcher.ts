/**
 * Gathers writes that arrive close together so that one statement carries them all (group
 * commit). A write waits for the end of the current event-loop turn (`setImmediate`), so every
 * write submitted in that turn goes out together; while a statement of this batcher runs, the
 * writes submitted meanwhile wait for it and go out together in the next one. At most
 * `maxItems` go in one statement; the rest follow in the next.
 *
 * No timer: the delay is one turn of the event loop, or one statement when the batcher is
 * busy, never a sleep, so tests on Effect's TestClock see no difference, and an idle batcher
 * adds no latency beyond the turn.
 *
 * Each submitter's promise settles when the statement carrying its item does: resolved when it
 * succeeds, rejected with its cause when it fails (every item in a failed statement fails; the
 * next statement starts afresh). A submitter that stops waiting (an interrupted fiber) does not
 * withdraw its item, so the statement still carries everybody's writes.
 */
export interface StatementBatcher<T> {
  readonly submit: (item: T) => Promise<void>
}

interface Pending<T> {
  readonly item: T
  readonly resolve: () => void
  readonly reject: (cause: unknown) => void
}

export const makeStatementBatcher = <T>(
  write: (items: ReadonlyArray<T>) => Promise<unknown>,
  options: { readonly maxItems?: number } = {}
): StatementBatcher<T> => {
  const maxItems = Math.max(1, options.maxItems ?? 500)
  let pending: Array<Pending<T>> = []
  let scheduled = false
  let writing = false

  const schedule = (): void => {
    if (scheduled || writing || pending.length === 0) return
    scheduled = true
    setImmediate(flush)
  }

  const flush = (): void => {
    scheduled = false
    const batch = pending.slice(0, maxItems)
    pending = pending.slice(maxItems)
    writing = true
    // `then` first, so that a write that throws before returning its promise fails its batch too.
    Promise.resolve()
      .then(() => write(batch.map((entry) => entry.item)))
      .then(
        () => {
          for (const entry of batch) entry.resolve()
        },
        (cause: unknown) => {
          for (const entry of batch) entry.reject(cause)
        }
      )
      .finally(() => {
        writing = false
        schedule()
      })
  }

  return {
    submit: (item) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ item, resolve, reject })
        schedule()
      })
  }
}
