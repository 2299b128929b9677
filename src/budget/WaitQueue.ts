import { type Lane, lanesByPriority, laneRank } from "./Lane.js"

/** What the queue needs to know about a waiter. */
export interface Queued {
  readonly lane: Lane
  readonly storeKey: string
}

/**
 * Waiters for a slot, served strictly by lane priority and, inside a lane, round-robin across
 * stores (FIFO within one store). A store that is served goes to the back of its lane's ring,
 * so two stores that both keep waiting are served alternately: one large store cannot starve
 * the others.
 */
export class WaitQueue<W extends Queued> {
  private readonly lanes: Record<Lane, LaneQueue<W>> = {
    urgent: new LaneQueue<W>(),
    normal: new LaneQueue<W>(),
    background: new LaneQueue<W>()
  }
  private count = 0

  get size(): number {
    return this.count
  }

  enqueue(waiter: W): void {
    this.laneOf(waiter.lane).enqueue(waiter)
    this.count++
  }

  /** Removes a waiter that gave up; false when it is no longer queued. */
  remove(waiter: W): boolean {
    const removed = this.laneOf(waiter.lane).remove(waiter)
    if (removed) this.count--
    return removed
  }

  /** The next waiter to serve (highest lane, next store in the ring), or undefined. */
  peek(): W | undefined {
    for (const lane of lanesByPriority) {
      const next = this.laneOf(lane).peek()
      if (next !== undefined) return next
    }
    return undefined
  }

  /** Takes the next waiter to serve, if its lane ranks at least `minRank`. */
  takeNext(minRank = 0): W | undefined {
    for (const lane of lanesByPriority) {
      if (laneRank(lane) < minRank) return undefined
      const next = this.laneOf(lane).take()
      if (next !== undefined) {
        this.count--
        return next
      }
    }
    return undefined
  }

  waitingByLane(): Record<Lane, number> {
    return {
      urgent: this.laneOf("urgent").size,
      normal: this.laneOf("normal").size,
      background: this.laneOf("background").size
    }
  }

  private laneOf(lane: Lane): LaneQueue<W> {
    return this.lanes[lane]
  }
}

class LaneQueue<W extends Queued> {
  /** Stores with waiters, next to serve first. */
  private readonly ring: Array<string> = []
  private readonly byStore = new Map<string, Array<W>>()
  size = 0

  enqueue(waiter: W): void {
    const queue = this.byStore.get(waiter.storeKey)
    if (queue === undefined) {
      this.byStore.set(waiter.storeKey, [waiter])
      this.ring.push(waiter.storeKey)
    } else {
      queue.push(waiter)
    }
    this.size++
  }

  peek(): W | undefined {
    const store = this.ring[0]
    return store === undefined ? undefined : this.byStore.get(store)?.[0]
  }

  take(): W | undefined {
    const store = this.ring.shift()
    if (store === undefined) return undefined
    const queue = this.byStore.get(store)
    const waiter = queue?.shift()
    if (queue === undefined || waiter === undefined) {
      throw new Error(`WaitQueue: store ${store} is in the ring without waiters (the ring lists exactly the stores with waiters)`)
    }
    if (queue.length > 0) this.ring.push(store)
    else this.byStore.delete(store)
    this.size--
    return waiter
  }

  remove(waiter: W): boolean {
    const queue = this.byStore.get(waiter.storeKey)
    const index = queue?.indexOf(waiter) ?? -1
    if (queue === undefined || index < 0) return false
    queue.splice(index, 1)
    if (queue.length === 0) {
      this.byStore.delete(waiter.storeKey)
      this.ring.splice(this.ring.indexOf(waiter.storeKey), 1)
    }
    this.size--
    return true
  }
}
