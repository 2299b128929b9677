/**
 * Keeps podsync's POD webhook subscriptions in place (ARCHITECTURE.md,
 * configuration `pod.webhooks`): when `publicUrl` is set, each configured
 * topic has exactly one ACTIVE subscription delivering to `publicUrl` in the
 * configured version.
 *
 * "Ours" are the subscriptions whose delivery URL has the host and path of
 * `publicUrl`; any other subscription is someone else's and never touched.
 * Ours that are not wanted (a topic no longer configured, another version,
 * inactive, store-scoped, another scheme or query, a second one for a topic)
 * are deleted first, then the missing ones are created: the service refuses
 * a duplicate topic for one URL, so the stale one must go before its
 * replacement comes. Running it again changes nothing.
 *
 * Every request goes in the background lane. A failed create or delete is
 * reported and left for the next run. A listing the service failed to answer
 * (unreachable, a 5xx, a timeout) is tried again a few times, seconds apart:
 * the next run is the catalog schedule's (hourly by default), and until then
 * tracking would come only from polling. Only a listing that still fails
 * fails `ensure`.
 */
import { Effect, Schedule, Stream } from "effect"
import * as E from "../domain/PodEnums.js"
import type { PodError } from "../pod/PodErrors.js"
import { PodClient } from "../pod/PodClient.js"
import type { Webhook } from "../pod/schemas/Webhooks.js"

export interface SubscriptionTarget {
  readonly publicUrl: string
  readonly topics: ReadonlyArray<string>
  readonly version: E.WebhookVersion
}

export interface SubscriptionPlan {
  /** Ours and wanted: left alone. */
  readonly keep: ReadonlyArray<Webhook>
  /** Ours and not wanted. */
  readonly remove: ReadonlyArray<Webhook>
  /** Configured topics with no wanted subscription. */
  readonly create: ReadonlyArray<E.WebhookTopic>
  /** Configured topics the service does not know; reported, never sent. */
  readonly unsupported: ReadonlyArray<string>
}

export interface EnsureReport {
  readonly kept: ReadonlyArray<string>
  readonly created: ReadonlyArray<{ readonly topic: string; readonly webhookId: string }>
  readonly deleted: ReadonlyArray<{ readonly webhookId: string; readonly topic: string | undefined }>
  readonly unsupported: ReadonlyArray<string>
  readonly failed: ReadonlyArray<{ readonly action: "create" | "delete"; readonly target: string; readonly error: string }>
}

/** The create operation's topic names (VENDOR_WEBHOOK_TOPIC_…) as the schema names them. */
const TOPIC_ALIASES: Readonly<Record<string, E.WebhookTopic>> = {
  VENDOR_WEBHOOK_TOPIC_ORDER_COMPLETED: "TOPIC_ORDER_COMPLETED",
  VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED: "TOPIC_ORDER_CANCELLED",
  VENDOR_WEBHOOK_TOPIC_TRACKING_UPDATED: "TOPIC_TRACKING_ORDER_UPDATED",
  VENDOR_WEBHOOK_TOPIC_ADDRESS_UNVERIFIED: "TOPIC_SHIPPING_ADDRESS_UNVERIFIED"
}

const isKnownTopic = (topic: string): topic is E.WebhookTopic => (E.WebhookTopics as ReadonlyArray<string>).includes(topic)

export const canonicalTopic = (topic: string): string => TOPIC_ALIASES[topic] ?? topic

const parse = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

const hostAndPath = (url: URL): string => `${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, "")}`

/** Decides what to keep, delete and create; pure. */
export const planSubscriptions = (existing: ReadonlyArray<Webhook>, target: SubscriptionTarget): SubscriptionPlan => {
  const wantedUrl = parse(target.publicUrl)
  if (wantedUrl === undefined) return { keep: [], remove: [], create: [], unsupported: [...target.topics] }
  const wanted = new Set(target.topics.map(canonicalTopic))
  const ours = existing.filter((webhook) => {
    const url = parse(webhook.delivery_url ?? "")
    return url !== undefined && hostAndPath(url) === hostAndPath(wantedUrl)
  })
  const keep: Array<Webhook> = []
  const remove: Array<Webhook> = []
  const covered = new Set<string>()
  for (const webhook of ours) {
    const topic = canonicalTopic(webhook.topic ?? "")
    const good = wanted.has(topic) &&
      !covered.has(topic) &&
      webhook.status === "STATUS_ACTIVE" &&
      webhook.version === target.version &&
      (webhook.store_id ?? "") === "" &&
      parse(webhook.delivery_url ?? "")?.href === wantedUrl.href
    if (good) {
      covered.add(topic)
      keep.push(webhook)
    } else {
      remove.push(webhook)
    }
  }
  const missing = [...wanted].filter((topic) => !covered.has(topic))
  return {
    keep,
    remove,
    create: missing.filter(isKnownTopic),
    unsupported: missing.filter((topic) => !isKnownTopic(topic))
  }
}

const describe = (error: PodError): string => {
  switch (error._tag) {
    case "PodInvalidRequestError":
    case "PodDecodeError":
      return `${error._tag}: ${error.issue}`
    case "PodTransportError":
      return `${error._tag}: ${error.reason}`
    default:
      return `${error._tag}: ${error.message}`
  }
}

/** A delete that finds nothing means an earlier attempt (or someone) already did it. */
const alreadyGone = (error: PodError): boolean =>
  error._tag === "PodNotFoundError" || (error._tag === "PodEnvelopeError" && /not\s*found/i.test(error.message))

const background = { lane: "background" } as const

/** A listing worth asking again: the service did not answer, or failed on its side. */
const transient = (error: PodError): boolean =>
  error._tag === "PodTransportError" || error._tag === "PodServerError" || error._tag === "PodRateLimitedError"

/** 2, 4, 8 and 16 s: half a minute in all. */
const LISTING_RETRIES = Schedule.exponential("2 seconds").pipe(Schedule.intersect(Schedule.recurs(4)))

export class PodWebhookSubscriptions extends Effect.Service<PodWebhookSubscriptions>()("podsync/PodWebhookSubscriptions", {
  effect: (target: SubscriptionTarget | undefined) =>
    Effect.gen(function*() {
      const pod = yield* PodClient

      const apply = (plan: SubscriptionPlan, publicUrl: string, version: E.WebhookVersion) =>
        Effect.gen(function*() {
          const deleted: Array<EnsureReport["deleted"][number]> = []
          const created: Array<EnsureReport["created"][number]> = []
          const failed: Array<EnsureReport["failed"][number]> = []
          for (const webhook of plan.remove) {
            const outcome = yield* pod.deleteWebhook(webhook.webhook_id, background).pipe(
              Effect.asVoid,
              Effect.catchIf(alreadyGone, () => Effect.void),
              Effect.either
            )
            if (outcome._tag === "Right") deleted.push({ webhookId: webhook.webhook_id, topic: webhook.topic })
            else failed.push({ action: "delete", target: webhook.webhook_id, error: describe(outcome.left) })
          }
          for (const topic of plan.create) {
            const outcome = yield* pod.createWebhook(
              { status: "STATUS_ACTIVE", topic, version, delivery_url: publicUrl, name: `podsync ${topic}` },
              background
            ).pipe(Effect.either)
            if (outcome._tag === "Right") created.push({ topic, webhookId: outcome.right.webhook_id })
            else failed.push({ action: "create", target: topic, error: describe(outcome.left) })
          }
          return { deleted, created, failed }
        })

      /** Brings the subscriptions in line with the configuration; does nothing when no public URL is configured. */
      const ensure: Effect.Effect<EnsureReport, PodError> = Effect.gen(function*() {
        if (target === undefined) return { kept: [], created: [], deleted: [], unsupported: [], failed: [] }
        const existing = yield* Stream.runCollect(pod.streamWebhooks({}, background)).pipe(
          Effect.tapError((error) =>
            transient(error)
              ? Effect.logWarning("listing the POD webhook subscriptions failed; asking again shortly").pipe(
                Effect.annotateLogs({ error: describe(error) })
              )
              : Effect.void
          ),
          Effect.retry({ schedule: LISTING_RETRIES, while: transient })
        )
        const plan = planSubscriptions(Array.from(existing), target)
        const done = yield* apply(plan, target.publicUrl, target.version)
        const report: EnsureReport = {
          kept: plan.keep.map((webhook) => webhook.webhook_id),
          ...done,
          unsupported: plan.unsupported
        }
        if (report.unsupported.length > 0) {
          yield* Effect.logWarning("pod.webhooks.topics names topics the POD service does not know; they are skipped").pipe(
            Effect.annotateLogs({ topics: report.unsupported.join(", ") })
          )
        }
        if (report.failed.length > 0) {
          yield* Effect.logWarning("some POD webhook subscriptions could not be updated; the next run tries again").pipe(
            Effect.annotateLogs({ failed: report.failed.map((f) => `${f.action} ${f.target}: ${f.error}`).join("; ") })
          )
        }
        if (report.created.length + report.deleted.length > 0) {
          yield* Effect.logInfo("POD webhook subscriptions updated").pipe(
            Effect.annotateLogs({
              created: report.created.map((c) => c.topic).join(", "),
              deleted: report.deleted.map((d) => `${d.webhookId} (${d.topic ?? "?"})`).join(", ")
            })
          )
        }
        return report
      })

      return { ensure } as const
    })
}) {
  /** The target from `pod.webhooks`; undefined (nothing to keep) when it is not configured. */
  static readonly targetFromConfig = (
    webhooks: { readonly publicUrl: string; readonly topics: ReadonlyArray<string>; readonly version: E.WebhookVersion } | undefined
  ): SubscriptionTarget | undefined =>
    webhooks === undefined ? undefined : { publicUrl: webhooks.publicUrl, topics: webhooks.topics, version: webhooks.version }
}
