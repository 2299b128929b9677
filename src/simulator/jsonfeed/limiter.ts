/**
 * The storefront's rate limit (docs/jsonfeed.md §9): at most `requests`
 * accepted in any sliding window of `windowSeconds`; past it, 429 with
 * `Retry-After` in whole seconds, until the oldest accepted request leaves
 * the window. Refused requests do not count.
 */

export interface RateLimit {
  readonly requests: number
  readonly windowSeconds: number
}

export type Admission = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number }

export class SlidingWindowLimiter {
  private accepted: Array<number> = []

  constructor(private limit: RateLimit | null, private readonly now: () => number) {}

  configure(limit: RateLimit | null): void {
    this.limit = limit
    this.accepted = []
  }

  current(): RateLimit | null {
    return this.limit
  }

  admit(): Admission {
    if (this.limit === null) return { ok: true }
    const now = this.now()
    const windowMs = this.limit.windowSeconds * 1000
    this.accepted = this.accepted.filter((at) => at > now - windowMs)
    if (this.accepted.length < this.limit.requests) {
      this.accepted.push(now)
      return { ok: true }
    }
    const oldest = this.accepted[0] ?? now
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) }
  }
}
