// The service's rate limit as it states it: N requests per W seconds on a strict
// sliding window of ARRIVALS (refused requests count too), then a block of B
// seconds during which everything is refused; a request arriving during a block
// does not extend it. Per client key. Time comes from an injected `now()`.

export interface RateLimitConfig {
  readonly requests: number
  readonly windowSeconds: number
  readonly blockSeconds: number
}

export type LimitDecision =
  | { readonly allowed: true; readonly inWindow: number }
  | { readonly allowed: false; readonly inWindow: number; readonly retryAfterSeconds: number; readonly blockedUntil: number }

/**
 * Timestamps of arrivals within the last `windowMs` (half-open: an arrival at t
 * is out of the window at t + windowMs). `record` returns how many arrivals,
 * this one included, fall in the window ending now; the most ever seen is kept.
 */
export class ArrivalWindow {
  private readonly times: Array<number> = []
  private head = 0
  private most = 0

  constructor(readonly windowMs: number) {}

  record(now: number): number {
    this.times.push(now)
    const count = this.countAt(now)
    if (count > this.most) this.most = count
    return count
  }

  countAt(now: number): number {
    while (this.head < this.times.length && (this.times[this.head] as number) <= now - this.windowMs) this.head += 1
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head)
      this.head = 0
    }
    return this.times.length - this.head
  }

  get maxInWindow(): number {
    return this.most
  }
}

interface KeyState {
  readonly arrivals: ArrivalWindow
  blockedUntil: number
}

export class SlidingWindowLimiter {
  private readonly keys = new Map<string, KeyState>()

  constructor(readonly config: RateLimitConfig, private readonly now: () => number) {}

  /** Registers an arrival for `key` and decides whether it is served. */
  arrive(key: string): LimitDecision {
    const now = this.now()
    const state = this.stateOf(key)
    const inWindow = state.arrivals.record(now)
    if (now < state.blockedUntil) {
      return { allowed: false, inWindow, retryAfterSeconds: (state.blockedUntil - now) / 1000, blockedUntil: state.blockedUntil }
    }
    if (inWindow > this.config.requests) {
      state.blockedUntil = now + this.config.blockSeconds * 1000
      return { allowed: false, inWindow, retryAfterSeconds: this.config.blockSeconds, blockedUntil: state.blockedUntil }
    }
    return { allowed: true, inWindow }
  }

  /** The latest block end over all keys, when still in the future. */
  blockedUntil(): number | null {
    const now = this.now()
    let latest: number | null = null
    for (const state of this.keys.values()) {
      if (state.blockedUntil > now && (latest === null || state.blockedUntil > latest)) latest = state.blockedUntil
    }
    return latest
  }

  private stateOf(key: string): KeyState {
    const existing = this.keys.get(key)
    if (existing !== undefined) return existing
    const created: KeyState = { arrivals: new ArrivalWindow(this.config.windowSeconds * 1000), blockedUntil: 0 }
    this.keys.set(key, created)
    return created
  }
}
