import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option, Schema } from "effect"
import { RateBudget } from "../budget/RateBudget.js"
import { isDryRun } from "../config/DryRun.js"
import { budgetStatusOf } from "../observability/BudgetStatus.js"
import { DependencyHealth } from "../observability/DependencyHealth.js"
import { MetricsRegistry } from "../observability/MetricsRegistry.js"
import { PodRequestMetrics } from "../observability/PodRequestMetrics.js"
import { readStatusReport, StatusReport } from "../observability/StatusReport.js"
import { StoreApiMetrics } from "../observability/StoreApiMetrics.js"
import { WebhookMetrics } from "../observability/WebhookMetrics.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { MappingStore } from "../pipeline/MappingStore.js"

/** GET /metrics: Prometheus text, figures from the database read at this scrape. */
export const metricsResponse = Effect.gen(function*() {
  const metrics = yield* MetricsRegistry
  const body = yield* metrics.scrape
  return HttpServerResponse.text(body, { contentType: metrics.contentType })
})

/**
 * What the daemon can add to the database's figures: its configured stores, its budget
 * (waiters per lane, counters) and its traffic since start. Each part is optional, so the
 * route answers in any composition of the daemon's layers.
 */
const daemonExtras = Effect.gen(function*() {
  const stores = yield* Effect.serviceOption(StoreConnectors)
  const budget = yield* Effect.serviceOption(RateBudget)
  const pod = yield* Effect.serviceOption(PodRequestMetrics)
  const storeCalls = yield* Effect.serviceOption(StoreApiMetrics)
  const webhooks = yield* Effect.serviceOption(WebhookMetrics)
  const health = yield* Effect.serviceOption(DependencyHealth)
  const mappings = yield* Effect.serviceOption(MappingStore)
  const counted = Option.isSome(pod) || Option.isSome(storeCalls) || Option.isSome(webhooks)
  return {
    dryRun: yield* isDryRun,
    storeKeys: Option.match(stores, { onNone: () => [], onSome: (map) => [...map.keys()] }),
    budget: Option.isSome(budget) ? budgetStatusOf(yield* budget.value.snapshot) : null,
    ...(Option.isSome(health) ? { troubles: yield* health.value.troubles, refusals: yield* health.value.refusals } : {}),
    ...(Option.isSome(mappings) ? { mappingProblems: yield* mappings.value.problems } : {}),
    ...(Option.isSome(webhooks) ? { signatureRefusals: yield* webhooks.value.signatureRefusals } : {}),
    traffic: counted
      ? {
        pod: Option.isSome(pod) ? yield* pod.value.counts : [],
        stores: Option.isSome(storeCalls) ? yield* storeCalls.value.counts : [],
        webhooks: Option.isSome(webhooks) ? yield* webhooks.value.counts : []
      }
      : null
  }
})

/** The status report this daemon answers now (GET /status, and the console's overview). */
export const statusReportNow = Effect.flatMap(daemonExtras, readStatusReport)

/** GET /status: orders, what needs a person, queues, pulls, budget and traffic, as JSON. */
export const statusResponse = Effect.gen(function*() {
  const report = yield* statusReportNow
  return yield* HttpServerResponse.json(yield* Schema.encode(StatusReport)(report))
}).pipe(
  Effect.catchTags({
    DbError: (error) =>
      Effect.logWarning("GET /status: the database did not answer", error.message).pipe(
        Effect.as(
          HttpServerResponse.unsafeJson({ error: "unavailable", detail: "the database did not answer; retry shortly" }, { status: 503 })
        )
      ),
    ParseError: (error) => Effect.die(error)
  })
)

/** GET /metrics. (GET /status lives with the health routes: `HttpRouter.get("/status", statusResponse)`.) */
export const MetricsRoutes = HttpRouter.empty.pipe(HttpRouter.get("/metrics", metricsResponse))
