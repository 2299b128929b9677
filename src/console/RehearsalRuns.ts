import { Cause, Clock, Effect, FiberSet, Option, Ref } from "effect"
import { type PlanningInputs } from "../pipeline/PlanningInputs.js"
import { rehearseStore } from "../pipeline/Rehearse.js"
import { type PodClient } from "../pod/PodClient.js"
import { type RehearsalReportSettings, type RehearsalResult, reportRehearsal } from "../reporting/RehearsalReports.js"
import { type CatalogRepo } from "../repos/CatalogRepo.js"
import { type StoreConnectors } from "../stores/StoreConnector.js"

/**
 * The daemon's rehearsals (issue 37): run now for `podsync rehearse` (POST /rehearse, while the
 * daemon holds the embedded database), or in the background from the console, which shows the
 * latest of each store. One rehearsal of a store at a time; each is read-only, and its POD calls
 * wait on the shared budget's background lane behind the pipeline's own.
 */

export interface RehearsalRunSettings {
  readonly report: RehearsalReportSettings
  /** `pod.rateLimit`. */
  readonly budget: { readonly requests: number; readonly windowSeconds: number; readonly headroom: number }
}

/** The latest rehearsal of a store, as the console shows it. */
export type LatestRehearsal =
  | { readonly _tag: "Running"; readonly storeKey: string; readonly days: number; readonly startedAt: number }
  | {
    readonly _tag: "Done"
    readonly storeKey: string
    readonly days: number
    readonly startedAt: number
    readonly result: RehearsalResult
  }
  | { readonly _tag: "Failed"; readonly storeKey: string; readonly days: number; readonly startedAt: number; readonly error: string }

export class RehearsalRuns extends Effect.Service<RehearsalRuns>()("podsync/RehearsalRuns", {
  scoped: (settings: RehearsalRunSettings) =>
    Effect.gen(function*() {
      // What a rehearsal reads with, taken once: the daemon's own planning inputs, connectors and POD client.
      const context = yield* Effect.context<PlanningInputs | StoreConnectors | PodClient | CatalogRepo>()
      const latest = yield* Ref.make(new Map<string, LatestRehearsal>())
      const background = yield* FiberSet.make()
      const set = (entry: LatestRehearsal) => Ref.update(latest, (m) => new Map(m).set(entry.storeKey, entry))

      const rehearse = (storeKey: string, days: number) =>
        reportRehearsal(rehearseStore({ storeKey, days, budget: settings.budget }), settings.report).pipe(Effect.provide(context))

      /** Runs one now and waits for it (the command's way); it becomes the store's latest. */
      const run = (storeKey: string, days: number) =>
        Effect.gen(function*() {
          const startedAt = yield* Clock.currentTimeMillis
          yield* set({ _tag: "Running", storeKey, days, startedAt })
          return yield* rehearse(storeKey, days).pipe(
            Effect.tap((result) => set({ _tag: "Done", storeKey, days, startedAt, result })),
            Effect.tapErrorCause((cause) => {
              const error = Cause.squash(cause)
              return set({ _tag: "Failed", storeKey, days, startedAt, error: error instanceof Error ? error.message : Cause.pretty(cause) })
            })
          )
        })

      /** Starts one in the background (the console's way); false when one of the store is running already. */
      const start = (storeKey: string, days: number) =>
        Effect.gen(function*() {
          const now = (yield* Ref.get(latest)).get(storeKey)
          if (now?._tag === "Running") return false
          yield* FiberSet.run(
            background,
            run(storeKey, days).pipe(
              Effect.catchAllCause((cause) => Effect.logWarning("rehearsal failed", cause)),
              Effect.annotateLogs({ store: storeKey })
            )
          )
          return true
        })

      return {
        run,
        start,
        /** The latest rehearsal of each store that had one. */
        latest: Effect.map(Ref.get(latest), (m) => [...m.values()]),
        latestOf: (storeKey: string) => Effect.map(Ref.get(latest), (m) => Option.fromNullable(m.get(storeKey)))
      }
    })
}) {}
