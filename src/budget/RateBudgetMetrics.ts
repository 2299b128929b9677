import { Effect, Runtime } from "effect"
import { Counter, Gauge, type Registry } from "prom-client"
import type { BudgetSnapshot } from "./CredentialBudget.js"
import { lanesByPriority } from "./Lane.js"
import { RateBudget } from "./RateBudget.js"

/**
 * Registers the budget's gauges on a prom-client registry; values are read from the budget's
 * snapshot at scrape time.
 */
export const registerRateBudgetMetrics = (registry: Registry) =>
  Effect.gen(function*() {
    const budget = yield* RateBudget
    const runtime = yield* Effect.runtime<never>()
    // prom-client collects every metric of a scrape at once: they share one snapshot.
    let pending: Promise<BudgetSnapshot> | undefined
    const read = (): Promise<BudgetSnapshot> => {
      if (pending === undefined) {
        const snapshot = Runtime.runPromise(runtime)(budget.snapshot)
        pending = snapshot
        void snapshot.finally(() => {
          if (pending === snapshot) pending = undefined
        })
      }
      return pending
    }
    const labels = { credential: budget.credential }
    const registers = [registry]
    const gauge = (name: string, help: string, value: (s: BudgetSnapshot) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["credential"],
        registers,
        async collect() {
          this.set(labels, value(await read()))
        }
      })
    const counter = (name: string, help: string, value: (s: BudgetSnapshot) => number) => {
      let reported = 0
      return new Counter({
        name,
        help,
        labelNames: ["credential"],
        registers,
        async collect() {
          const current = value(await read())
          if (current > reported) this.inc(labels, current - reported)
          reported = current
        }
      })
    }

    gauge("podsync_pod_budget_limit", "Requests allowed per window (requests × (1 − headroom))", (s) => s.limit)
    gauge("podsync_pod_budget_window_seconds", "Length of the rate window", (s) => s.windowSeconds)
    gauge("podsync_pod_budget_in_use", "Slots held now, across every replica", (s) => s.inUse)
    gauge("podsync_pod_budget_in_flight", "POD requests sent and not yet answered, across every replica", (s) => s.inFlight)
    gauge("podsync_pod_budget_paused", "1 while a 429 pauses every caller of the credential", (s) => s.pausedUntil === null ? 0 : 1)
    new Gauge({
      name: "podsync_pod_budget_waiting",
      help: "Callers of this replica waiting for a slot, per lane",
      labelNames: ["credential", "lane"],
      registers,
      async collect() {
        const snapshot = await read()
        for (const lane of lanesByPriority) this.set({ ...labels, lane }, snapshot.waiting[lane])
      }
    })
    counter("podsync_pod_budget_sent_total", "POD requests this replica sent through the budget", (s) => s.sent)
    counter("podsync_pod_budget_rate_limited_total", "429 answers this replica received", (s) => s.rateLimited)
    counter("podsync_pod_budget_ledger_errors_total", "Failures of the budget's ledger (database)", (s) => s.ledgerErrors)
  })
