/**
 * Etsy's per-application quotas (store-apis.md §3.4): queries per second over a sliding second, and
 * queries per rolling 24 hours counted in one-minute buckets. Accepted answers carry
 * `x-limit-per-second`, `x-remaining-this-second`, `x-limit-per-day`, `x-remaining-today`. Over a limit
 * the answer is 429; whether the limit headers and a `retry-after` come with it is not settled (§3.4),
 * so both are switches (default: neither, as the older doc says).
 */

export interface QuotaSettings {
  perSecond: number
  perDay: number
  limitHeadersOn429: boolean
  retryAfterOn429: boolean
}

export type Admission =
  | { readonly ok: true; readonly headers: Record<string, string> }
  | { readonly ok: false; readonly limit: "second" | "day"; readonly headers: Record<string, string>; readonly message: string }

const DAY_MINUTES = 24 * 60

export class Quota {
  private recent: number[] = []
  private dayBuckets = new Map<number, number>()
  /** Most requests accepted within any one second (sliding), since the last reset. */
  maxInOneSecond = 0

  constructor(readonly settings: QuotaSettings, private readonly now: () => number) {}

  reset(): void {
    this.recent = []
    this.dayBuckets = new Map()
    this.maxInOneSecond = 0
  }

  private usedToday(nowMs: number): number {
    const minute = Math.floor(nowMs / 60_000)
    let used = 0
    for (const [bucket, count] of this.dayBuckets) {
      if (bucket <= minute - DAY_MINUTES) this.dayBuckets.delete(bucket)
      else used += count
    }
    return used
  }

  /** Admin: pretend `count` requests were made in the current minute (to exhaust or nearly exhaust the day). */
  setUsedToday(count: number): void {
    this.dayBuckets = new Map([[Math.floor(this.now() / 60_000), Math.max(0, count)]])
  }

  private limitHeaders(nowMs: number): Record<string, string> {
    return {
      "x-limit-per-second": String(this.settings.perSecond),
      "x-remaining-this-second": String(Math.max(0, this.settings.perSecond - this.recent.length)),
      "x-limit-per-day": String(this.settings.perDay),
      "x-remaining-today": String(Math.max(0, this.settings.perDay - this.usedToday(nowMs)))
    }
  }

  private secondsUntilDayFrees(nowMs: number): number {
    const oldest = Math.min(...this.dayBuckets.keys())
    return Number.isFinite(oldest) ? Math.max(1, Math.ceil(((oldest + DAY_MINUTES) * 60_000 - nowMs) / 1000)) : 1
  }

  /** A 429 answer's headers, as the switches say. */
  rejectionHeaders(limit: "second" | "day"): Record<string, string> {
    const nowMs = this.now()
    return {
      ...(this.settings.limitHeadersOn429 ? this.limitHeaders(nowMs) : {}),
      ...(this.settings.retryAfterOn429 ? { "retry-after": String(limit === "second" ? 1 : this.secondsUntilDayFrees(nowMs)) } : {})
    }
  }

  /** Counts the request if both quotas allow it. */
  admit(): Admission {
    const nowMs = this.now()
    this.recent = this.recent.filter((at) => at > nowMs - 1000)
    if (this.usedToday(nowMs) >= this.settings.perDay) {
      return {
        ok: false,
        limit: "day",
        headers: this.rejectionHeaders("day"),
        message: `Daily quota of ${this.settings.perDay} requests exceeded`
      }
    }
    if (this.recent.length >= this.settings.perSecond) {
      return {
        ok: false,
        limit: "second",
        headers: this.rejectionHeaders("second"),
        message: `Too many requests: more than ${this.settings.perSecond} per second`
      }
    }
    this.recent.push(nowMs)
    const minute = Math.floor(nowMs / 60_000)
    this.dayBuckets.set(minute, (this.dayBuckets.get(minute) ?? 0) + 1)
    this.maxInOneSecond = Math.max(this.maxInOneSecond, this.recent.length)
    return { ok: true, headers: this.limitHeaders(nowMs) }
  }

  status() {
    const nowMs = this.now()
    return {
      perSecond: this.settings.perSecond,
      perDay: this.settings.perDay,
      usedThisSecond: this.recent.filter((at) => at > nowMs - 1000).length,
      usedToday: this.usedToday(nowMs),
      maxInOneSecond: this.maxInOneSecond
    }
  }
}
