import { Effect, Layer } from "effect"
import { logFailure } from "../observability/DependencyHealth.js"
import { WebhookInboxRepo } from "../repos/WebhookInboxRepo.js"
import { makeScheduler } from "../schedule/Scheduler.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import { logFailures, PipelineSettings } from "./StageLoop.js"

/**
 * The webhook inbox's housekeeping: keys older than `retentionDays` are forgotten, at start and on
 * the catalog schedule (one replica per tick), in batches of a statement each so deliveries
 * arriving meanwhile are stored between them. A key only needs remembering while its sender may
 * still retry.
 */
export const InboxPruningLive = (retentionDays: number) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const settings = yield* PipelineSettings
    const owner = yield* Replica
    const inbox = yield* WebhookInboxRepo
    const prune = logFailures(
      "webhook inbox pruning",
      inbox.pruneExpired(retentionDays).pipe(
        Effect.tap((deleted) =>
          deleted > 0 ? Effect.logInfo(`webhook inbox: forgot ${deleted} deliveries older than ${retentionDays} days`) : Effect.void
        )
      )
    )
    const scheduler = yield* makeScheduler({ owner, timezone: settings.timezone, logFailure })
    yield* scheduler.schedule("inbox-prune", settings.schedules.catalog, prune)
    yield* Effect.forkScoped(logFailures("webhook inbox pruning", scheduler.runNow("inbox-prune", prune)))
  }))
