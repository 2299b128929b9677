// What the simulator saw: requests per route, 429s, and the most arrivals in
// any sliding window (per client key; the figure reported is the highest).
import { ArrivalWindow } from "./limiter.js"
import type { SimState } from "./state.js"
import type { Json } from "./wire.js"
import { iso } from "./wire.js"

export class SimStats {
  private requests = new Map<string, number>()
  private statuses = new Map<number, number>()
  private windows = new Map<string, ArrivalWindow>()
  private previousMax = 0
  private total = 0
  private rejected429 = 0
  private resets = 0
  private firstAt: number | null = null
  private lastAt: number | null = null

  constructor(private windowSeconds: number, private readonly now: () => number) {}

  reset(): void {
    this.requests.clear()
    this.statuses.clear()
    this.windows.clear()
    this.previousMax = 0
    this.total = 0
    this.rejected429 = 0
    this.resets = 0
    this.firstAt = null
    this.lastAt = null
  }

  /** A new window length starts new windows; the most seen so far is kept. */
  setWindowSeconds(windowSeconds: number): void {
    if (windowSeconds === this.windowSeconds) return
    this.previousMax = this.maxInWindow()
    this.windows.clear()
    this.windowSeconds = windowSeconds
  }

  /** Every arriving request on a served route (admin excluded), keyed by its route pattern. */
  arrival(routeKey: string): void {
    const now = this.now()
    this.firstAt ??= now
    this.lastAt = now
    this.total += 1
    this.requests.set(routeKey, (this.requests.get(routeKey) ?? 0) + 1)
  }

  /** An arrival that the rate limit counts, for the client key that sent it. */
  countedArrival(clientKey: string): void {
    let window = this.windows.get(clientKey)
    if (window === undefined) {
      window = new ArrivalWindow(this.windowSeconds * 1000)
      this.windows.set(clientKey, window)
    }
    window.record(this.now())
  }

  answered(status: number): void {
    if (status === 429) this.rejected429 += 1
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
  }

  dropped(): void {
    this.resets += 1
  }

  maxInWindow(): number {
    let most = this.previousMax
    for (const window of this.windows.values()) most = Math.max(most, window.maxInWindow)
    return most
  }

  snapshot(state: SimState, blockedUntil: number | null): Record<string, Json> {
    const draftsByReferenceId: Record<string, number> = {}
    for (const [reference, count] of state.draftsByReferenceId) draftsByReferenceId[reference] = count
    const byStatus: Record<string, number> = {}
    for (const [status, count] of this.statuses) byStatus[String(status)] = count
    return {
      requests: Object.fromEntries(this.requests),
      total: this.total,
      accepted: this.total - this.rejected429,
      rejected429: this.rejected429,
      maxInWindow: this.maxInWindow(),
      windowSeconds: this.windowSeconds,
      blockedUntil: blockedUntil === null ? null : iso(blockedUntil),
      draftsByReferenceId,
      duplicateReferenceIds: [...state.draftsByReferenceId].filter(([, n]) => n > 1).map(([reference]) => reference),
      byStatus,
      connectionsDropped: this.resets,
      firstRequestAt: this.firstAt === null ? null : iso(this.firstAt),
      lastRequestAt: this.lastAt === null ? null : iso(this.lastAt),
      drafts: state.drafts.size,
      orders: state.orders.size,
      /** Boxes shipped, over every order (one tracking each). */
      packages: [...state.orders.values()].reduce((sum, order) => sum + order.trackings.length, 0)
    }
  }
}
