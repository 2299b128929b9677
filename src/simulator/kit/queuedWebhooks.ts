import { WebhookQueue, type DeliverOptions, type PostResult, type QueueSettings, type RetrySettings } from "./webhookQueue.js"

/**
 * The part of a simulator's webhook sender that does not depend on the platform: its settings (which
 * the admin API replaces whole), the delivery log, the queue, and reset/close. A simulator extends it
 * with its subscriptions, payloads, signing and headers.
 */
export abstract class QueuedWebhooks<D, S extends QueueSettings & Partial<RetrySettings>, L> {
  settings: S
  protected log: Array<L> = []
  protected readonly queue: WebhookQueue<D>

  constructor(private readonly defaults: () => S) {
    this.settings = defaults()
    this.queue = new WebhookQueue<D>(() => this.settings, (d) => this.dispatch(d))
  }

  /** Prepares one queued delivery; the returned function sends one copy of it. */
  protected abstract dispatch(delivery: D): () => Promise<void>

  deliveries(): ReadonlyArray<L> {
    return this.log
  }
  pendingCount(): number {
    return this.queue.pendingCount()
  }

  /** Sends every queued delivery now, in sequence; returns how many requests were made. */
  deliver(options: DeliverOptions = {}): Promise<number> {
    return this.queue.deliver(options)
  }

  /** Back to the state at start: no log, default settings, nothing queued. */
  reset(): void {
    this.log = []
    this.settings = this.defaults()
    this.queue.reset()
  }

  close(): void {
    this.queue.close()
  }

  /** Logs one attempt and, when it was not answered 2xx, schedules `again` while retries remain. */
  protected logAttempt(entry: Omit<L, keyof PostResult>, result: PostResult, attempt: number, again: () => void): void {
    this.log.push({ ...entry, ...result } as L)
    if (!delivered(result)) this.queue.retryLater(attempt, again)
  }
}

/** Whether the receiver took the delivery (a 2xx answer). */
export const delivered = (result: PostResult): boolean => result.status !== null && result.status >= 200 && result.status < 300

/**
 * A sender with plain subscriptions (an id and where to send), as the admin API's
 * `POST webhooks/subscribe` creates them. Ids keep counting across resets, as they did.
 */
export abstract class SubscribedWebhooks<D, S extends QueueSettings & Partial<RetrySettings>, L, Sub extends { readonly id: number }>
  extends QueuedWebhooks<D, S, L>
{
  protected subscriptions: Array<Sub> = []
  private nextSubscriptionId = 1

  listSubscriptions(): ReadonlyArray<Sub> {
    return this.subscriptions
  }

  override reset(): void {
    super.reset()
    this.subscriptions = []
  }

  /** The subscription `same` finds (when given), else a new one made with the next id. */
  protected addSubscription(same: ((s: Sub) => boolean) | null, make: (id: number) => Sub): Sub {
    const existing = same === null ? undefined : this.subscriptions.find(same)
    if (existing) return existing
    const subscription = make(this.nextSubscriptionId++)
    this.subscriptions.push(subscription)
    return subscription
  }
}
