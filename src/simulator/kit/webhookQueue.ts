/**
 * The delivery machinery the marketplace simulators' webhooks share: deliveries queue when their event
 * happens (so a payload is that moment's resource) and go out `delayMs` later, or all at once when
 * asked, with duplicates (the same delivery sent again) and reordering (newest first) on demand.
 * A failed delivery may be retried with a doubling delay. Each simulator supplies what a delivery is,
 * how it is signed and sent, and what its log records.
 */

export interface QueueSettings {
  /** Send deliveries automatically `delayMs` after their event; when false only `deliver()` sends. */
  autoDeliver: boolean
  delayMs: number
  /** Extra copies of every automatic delivery. */
  duplicates: number
  /** Send each automatic batch newest first. */
  reorder: boolean
}

export interface RetrySettings {
  /** A delivery answered non-2xx (or not at all) is sent again up to this many times… */
  retries: number
  /** …after retryDelayMs, doubling each time. */
  retryDelayMs: number
}

/** The settings a simulator starts with (and `POST reset` restores): sent 50 ms after the event, once, in order. */
export const defaultQueueSettings = (): QueueSettings => ({ autoDeliver: true, delayMs: 50, duplicates: 0, reorder: false })

/** The starting settings of a simulator that retries: two retries, the first a second later. */
export const defaultRetryingSettings = (): QueueSettings & RetrySettings => ({ ...defaultQueueSettings(), retries: 2, retryDelayMs: 1000 })

export interface DeliverOptions {
  duplicates?: number
  reorder?: boolean
}

export interface PostResult {
  readonly status: number | null
  readonly error: string | null
}

/** What a failed request's log line says: the message, and what caused it when `withCause`. */
export const errorText = (error: unknown, withCause: boolean): string =>
  error instanceof Error
    ? `${error.message}${withCause && error.cause instanceof Error ? `: ${error.cause.message}` : ""}`
    : String(error)

/** How long a receiver may take before the request is abandoned. */
const POST_TIMEOUT_MS = 5000

export class WebhookQueue<D> {
  private pending: Array<D> = []
  private timer: NodeJS.Timeout | null = null
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private closed = false

  /**
   * `settings` is read at each use (the admin API replaces it); `dispatch` prepares one delivery and
   * returns what sends it once, called once per copy (so a simulator chooses whether a duplicate
   * carries the same signature or a fresh one).
   */
  constructor(
    private readonly settings: () => QueueSettings & Partial<RetrySettings>,
    private readonly dispatch: (delivery: D) => () => Promise<void>
  ) {}

  pendingCount(): number {
    return this.pending.length
  }

  /** Queues deliveries and, when automatic, arms the timer that sends the batch. */
  enqueue(deliveries: ReadonlyArray<D>): void {
    if (deliveries.length === 0) return
    this.pending.push(...deliveries)
    const settings = this.settings()
    if (settings.autoDeliver && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null
        void this.deliver({ duplicates: this.settings().duplicates, reorder: this.settings().reorder })
      }, settings.delayMs)
      this.timer.unref()
    }
  }

  /** Sends every queued delivery now, in sequence; returns how many requests were made. */
  async deliver(options: DeliverOptions = {}): Promise<number> {
    const batch = this.pending
    this.pending = []
    const ordered = options.reorder ? [...batch].reverse() : batch
    const copies = 1 + Math.max(0, options.duplicates ?? 0)
    let sent = 0
    for (const delivery of ordered) {
      const send = this.dispatch(delivery)
      for (let i = 0; i < copies; i++) {
        await send()
        sent += 1
      }
    }
    return sent
  }

  /** One POST, abandoned after a timeout or at close; never throws. */
  async post(url: string, headers: Record<string, string>, body: string, withCause: boolean): Promise<PostResult> {
    const controller = new AbortController()
    this.inFlight.add(controller)
    const timeout = setTimeout(() => controller.abort(), POST_TIMEOUT_MS)
    try {
      const response = await fetch(url, { method: "POST", signal: controller.signal, headers, body })
      await response.arrayBuffer().catch(() => undefined)
      return { status: response.status, error: null }
    } catch (error) {
      return { status: null, error: errorText(error, withCause) }
    } finally {
      clearTimeout(timeout)
      this.inFlight.delete(controller)
    }
  }

  /** Runs `again` later while the settings allow another attempt after `attempt` (the first is 1). */
  retryLater(attempt: number, again: () => void): void {
    const { retries = 0, retryDelayMs = 0 } = this.settings()
    if (this.closed || attempt > retries) return
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer)
      again()
    }, retryDelayMs * 2 ** (attempt - 1))
    timer.unref()
    this.retryTimers.add(timer)
  }

  /** Forgets queued deliveries and pending timers (the admin reset). */
  reset(): void {
    this.pending = []
    this.clearTimers()
  }

  close(): void {
    this.closed = true
    this.clearTimers()
    const controllers = [...this.inFlight]
    this.inFlight.clear()
    for (const controller of controllers) controller.abort()
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const t of this.retryTimers) clearTimeout(t)
    this.retryTimers.clear()
  }
}

/** Applies the admin `POST webhooks/settings` body to the queue settings (retry fields only where the simulator retries). */
export const readQueueSettings = <S extends QueueSettings & Partial<RetrySettings>>(current: S, b: Record<string, unknown>): S => {
  const next: S = { ...current }
  if (typeof b.autoDeliver === "boolean") next.autoDeliver = b.autoDeliver
  if (typeof b.delayMs === "number" && b.delayMs >= 0) next.delayMs = b.delayMs
  if (typeof b.duplicates === "number" && b.duplicates >= 0) next.duplicates = Math.floor(b.duplicates)
  if (typeof b.reorder === "boolean") next.reorder = b.reorder
  if ("retries" in current) {
    if (typeof b.retries === "number" && b.retries >= 0) next.retries = Math.floor(b.retries)
    if (typeof b.retryDelayMs === "number" && b.retryDelayMs >= 0) next.retryDelayMs = b.retryDelayMs
  }
  return next
}

/** The `{duplicates?, reorder?}` of an admin `POST webhooks/deliver` body. */
export const deliverOptions = (b: Record<string, unknown>): DeliverOptions => ({
  ...(typeof b.duplicates === "number" ? { duplicates: b.duplicates } : {}),
  ...(typeof b.reorder === "boolean" ? { reorder: b.reorder } : {})
})
