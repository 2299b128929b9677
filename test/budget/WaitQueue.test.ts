import { describe, expect, it } from "vitest"
import type { Lane } from "../../src/budget/Lane.js"
import { WaitQueue } from "../../src/budget/WaitQueue.js"

interface W {
  readonly lane: Lane
  readonly storeKey: string
  readonly name: string
}
const w = (lane: Lane, storeKey: string, name: string): W => ({ lane, storeKey, name })
const drain = (queue: WaitQueue<W>, minRank = 0) => {
  const names: Array<string> = []
  for (let next = queue.takeNext(minRank); next !== undefined; next = queue.takeNext(minRank)) names.push(next.name)
  return names
}

describe("the queue of callers waiting for a slot", () => {
  it("serves every urgent caller before any normal one, and normal before background", () => {
    const queue = new WaitQueue<W>()
    for (const item of [w("background", "a", "b1"), w("normal", "a", "n1"), w("urgent", "a", "u1"), w("normal", "a", "n2")]) {
      queue.enqueue(item)
    }
    expect(queue.waitingByLane()).toEqual({ urgent: 1, normal: 2, background: 1 })
    expect(drain(queue)).toEqual(["u1", "n1", "n2", "b1"])
  })

  it("takes turns between the stores of a lane, so a large store cannot starve a small one", () => {
    const queue = new WaitQueue<W>()
    for (let i = 1; i <= 4; i++) queue.enqueue(w("normal", "big", `big${i}`))
    queue.enqueue(w("normal", "small", "small1"))
    queue.enqueue(w("normal", "other", "other1"))
    queue.enqueue(w("normal", "small", "small2"))
    expect(drain(queue)).toEqual(["big1", "small1", "other1", "big2", "small2", "big3", "big4"])
  })

  it("forgets a caller that gave up, and its store when it was its last caller", () => {
    const queue = new WaitQueue<W>()
    const gone = w("normal", "a", "a1")
    queue.enqueue(gone)
    queue.enqueue(w("normal", "b", "b1"))
    expect(queue.remove(gone)).toBe(true)
    expect(queue.remove(gone)).toBe(false)
    expect(queue.size).toBe(1)
    expect(drain(queue)).toEqual(["b1"])
  })

  it("hands slots only to lanes at or above a minimum rank", () => {
    const queue = new WaitQueue<W>()
    queue.enqueue(w("background", "a", "b1"))
    queue.enqueue(w("normal", "a", "n1"))
    expect(drain(queue, 1)).toEqual(["n1"])
    expect(queue.size).toBe(1)
  })
})
