import { Effect, type Layer } from "effect"
import { MetricsRegistry } from "./MetricsRegistry.js"

/**
 * What became of one webhook delivery: stored and followed up (`accepted`), a delivery id seen
 * before (`duplicate`), a bad signature, stale timestamp or malformed body (`rejected`), over
 * the size limit (`too_large`), a ping with nothing to do (`ignored`), not stored because
 * the database failed (`unavailable`: the sender retries), or not stored because more arrives
 * than the database commits (`busy`: answered 503 with Retry-After, the sender retries).
 */
export type WebhookOutcome = "accepted" | "duplicate" | "rejected" | "too_large" | "ignored" | "unavailable" | "busy"

export const WEBHOOK_OUTCOMES: ReadonlyArray<WebhookOutcome> = [
  "accepted",
  "duplicate",
  "rejected",
  "too_large",
  "ignored",
  "unavailable",
  "busy"
]

/** The source label of deliveries to a path no configured sender owns: one label, however many paths are tried. */
export const UNKNOWN_SOURCE = "unknown"

export interface WebhookCount {
  readonly source: string
  readonly outcome: WebhookOutcome
  readonly count: number
}

/** A source whose deliveries fail their signature check: since when, how many, what the check said. */
export interface SignatureRefusal {
  readonly source: string
  readonly since: Date
  readonly count: number
  readonly detail: string
}

const isOutcome = (value: string): value is WebhookOutcome => (WEBHOOK_OUTCOMES as ReadonlyArray<string>).includes(value)

/**
 * Webhook deliveries by source (`pod` or a store key) and outcome. Sources are the configured
 * ones: anything else (a probe of /webhooks/<random>) is counted under `unknown`, so callers
 * cannot grow the label set.
 */
export class WebhookMetrics extends Effect.Service<WebhookMetrics>()("podsync/WebhookMetrics", {
  effect: (sources: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const known = new Set(sources)
      const deliveries = (yield* MetricsRegistry).counter(
        "podsync_webhook_deliveries_total",
        "Webhook deliveries received, by source (pod or store key) and outcome (accepted, duplicate, rejected, ...)",
        ["source", "outcome"]
      )
      // Every configured source shows all its outcomes from the start (0 until something happens).
      for (const source of known) for (const outcome of WEBHOOK_OUTCOMES) deliveries.inc({ source, outcome }, 0)

      /** Counts one delivery (the receiver calls it from node's request listener, outside any fiber). */
      const count = (source: string, outcome: WebhookOutcome): void =>
        deliveries.inc({ source: known.has(source) ? source : UNKNOWN_SOURCE, outcome })

      const refusals = new Map<string, SignatureRefusal>()

      return {
        count,
        /**
         * Counts a delivery refused for its signature (the receiver calls it outside any fiber); true
         * for the first of its source since it last verified, which the receiver says in the log.
         */
        badSignature: (source: string, detail: string, atMillis: number): boolean => {
          const before = refusals.get(source)
          refusals.set(source, { source, since: before?.since ?? new Date(atMillis), count: (before?.count ?? 0) + 1, detail })
          return before === undefined
        },
        /** A delivery of the source verified: its signature trouble, if any, is over. */
        signatureVerified: (source: string): void => {
          refusals.delete(source)
        },
        /** Sources refusing deliveries for their signature now, for /status. */
        signatureRefusals: Effect.sync((): ReadonlyArray<SignatureRefusal> => [...refusals.values()]),
        record: (source: string, outcome: WebhookOutcome) => Effect.sync(() => count(source, outcome)),
        /** Counts so far, for /status. */
        counts: Effect.promise(() => deliveries.get()).pipe(
          Effect.map((metric): ReadonlyArray<WebhookCount> =>
            metric.values.flatMap((v) => {
              const outcome = String(v.labels.outcome ?? "")
              return isOutcome(outcome) ? [{ source: String(v.labels.source ?? ""), outcome, count: v.value }] : []
            })
          )
        )
      }
    })
}) {}

/** The webhook counters of a daemon whose POD receiver is `pod` and stores are `storeKeys`. */
export const WebhookMetricsLive = (storeKeys: ReadonlyArray<string>): Layer.Layer<WebhookMetrics, never, MetricsRegistry> =>
  WebhookMetrics.Default(["pod", ...storeKeys])
