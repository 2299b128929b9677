import { describe, expect, it } from "vitest"
import { makeStatementBatcher } from "../../src/budget/StatementBatcher.js"

/** Lets the batcher's pending turn (setImmediate) and the settled promises run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A write whose statements the test finishes by hand, one at a time. */
const controlledWrites = () => {
  const statements: Array<{
    readonly items: ReadonlyArray<number>
    readonly succeed: () => void
    readonly fail: (cause: unknown) => void
  }> = []
  const write = (items: ReadonlyArray<number>) =>
    new Promise<void>((resolve, reject) => statements.push({ items, succeed: resolve, fail: reject }))
  /** Lets the event loop turn until `count` statements have started (or a few turns passed). */
  const untilStarted = async (count: number) => {
    for (let turn = 0; turn < 5 && statements.length < count; turn++) await nextTurn()
  }
  return { statements, write, untilStarted }
}

const settled = (promises: ReadonlyArray<Promise<void>>) =>
  Promise.allSettled(promises).then((results) => results.map((result) => result.status))

describe("gathering writes into shared statements", () => {
  it("writes everything submitted in one turn with one statement", async () => {
    const { statements, untilStarted, write } = controlledWrites()
    const batcher = makeStatementBatcher(write)
    const submitted = [1, 2, 3, 4].map((item) => batcher.submit(item))
    expect(statements).toHaveLength(0)
    await untilStarted(1)
    expect(statements.map((s) => s.items)).toEqual([[1, 2, 3, 4]])
    statements[0]!.succeed()
    expect(await settled(submitted)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"])
  })

  it("gathers what arrives while a statement runs into the next one, which waits for it", async () => {
    const { statements, untilStarted, write } = controlledWrites()
    const batcher = makeStatementBatcher(write)
    const first = batcher.submit(1)
    await untilStarted(1)
    const later = [2, 3].map((item) => batcher.submit(item))
    await untilStarted(2)
    // One statement at a time: 2 and 3 wait for the first one.
    expect(statements.map((s) => s.items)).toEqual([[1]])
    statements[0]!.succeed()
    await first
    await untilStarted(2)
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3]])
    statements[1]!.succeed()
    expect(await settled(later)).toEqual(["fulfilled", "fulfilled"])
  })

  it("puts at most maxItems in one statement", async () => {
    const { statements, untilStarted, write } = controlledWrites()
    const batcher = makeStatementBatcher(write, { maxItems: 2 })
    const submitted = [1, 2, 3, 4, 5].map((item) => batcher.submit(item))
    for (let i = 0; i < 3; i++) {
      await untilStarted(i + 1)
      statements[i]!.succeed()
    }
    expect(statements.map((s) => s.items)).toEqual([[1, 2], [3, 4], [5]])
    expect(await settled(submitted)).toEqual(Array(5).fill("fulfilled"))
  })

  it("fails every submitter of a failed statement, and the next statement still writes", async () => {
    const { statements, untilStarted, write } = controlledWrites()
    const batcher = makeStatementBatcher(write)
    const doomed = [1, 2, 3].map((item) => batcher.submit(item))
    await untilStarted(1)
    const cause = new Error("connection lost")
    statements[0]!.fail(cause)
    const outcomes = await Promise.allSettled(doomed)
    expect(outcomes).toEqual(Array(3).fill({ status: "rejected", reason: cause }))
    const after = batcher.submit(4)
    await untilStarted(2)
    statements[1]!.succeed()
    await expect(after).resolves.toBeUndefined()
    expect(statements.map((s) => s.items)).toEqual([[1, 2, 3], [4]])
  })

  it("fails the batch of a write that throws before starting its statement", async () => {
    let calls = 0
    const batcher = makeStatementBatcher<number>(() => {
      if (calls++ === 0) throw new Error("could not compile")
      return Promise.resolve()
    })
    const doomed = [1, 2].map((item) => batcher.submit(item))
    expect(await settled(doomed)).toEqual(["rejected", "rejected"])
    await expect(batcher.submit(3)).resolves.toBeUndefined()
  })
})
