import { Effect } from "effect"
import { Db } from "../db/Db.js"
import { now } from "./OrderRows.js"

/**
 * What people did in the web console, and what it refused them (migrations/2026-12-02T00-00-01_console_actions.ts):
 * the console's audit page reads it newest first. In the database, so every replica writes to one
 * list and it outlives restarts.
 */

export type ConsoleActionOutcome = "done" | "already_done" | "refused"

export interface ConsoleActionEntry {
  readonly actor: string
  readonly role: string
  /** retry, release, not_pod, mark_handled, mapping_add, mapping_edit, mapping_upload, mapping_merge, report_run, refused. */
  readonly kind: string
  readonly outcome: ConsoleActionOutcome
  /** What was done, in the seller's words. */
  readonly summary: string
  readonly referenceId?: string | null | undefined
  readonly storeKey?: string | null | undefined
}

export interface ConsoleAction extends ConsoleActionEntry {
  readonly id: number
  readonly at: Date
  readonly referenceId: string | null
  readonly storeKey: string | null
}

/** A page of the list, newest first; `next` is the id to read the following (older) page before. */
export interface ConsoleActionsPage {
  readonly actions: ReadonlyArray<ConsoleAction>
  readonly next: number | undefined
}

const SUMMARY_MAX = 2000

export class ConsoleActionsRepo extends Effect.Service<ConsoleActionsRepo>()("podsync/ConsoleActionsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db

    /** Records actions taken at one moment (a bulk action: one entry per order). */
    const record = (entries: ReadonlyArray<ConsoleActionEntry>) =>
      entries.length === 0 ?
        Effect.void :
        Effect.flatMap(now, (at) =>
          db.use((k) =>
            k.insertInto("console_actions").values(entries.map((e) => ({
              at,
              actor: e.actor,
              role: e.role,
              kind: e.kind,
              outcome: e.outcome,
              summary: e.summary.slice(0, SUMMARY_MAX),
              reference_id: e.referenceId ?? null,
              store_key: e.storeKey ?? null
            }))).execute()
          ).pipe(Effect.asVoid))

    /** The actions before id `before` (all, without it), newest first, `limit` of them. */
    const page = (options: { readonly before?: number | undefined; readonly limit: number }) =>
      Effect.map(
        db.use((k) => {
          let query = k.selectFrom("console_actions").selectAll().orderBy("id", "desc").limit(options.limit + 1)
          if (options.before !== undefined) query = query.where("id", "<", options.before)
          return query.execute()
        }),
        (rows): ConsoleActionsPage => {
          const actions = rows.slice(0, options.limit).map((row): ConsoleAction => ({
            id: Number(row.id),
            at: row.at instanceof Date ? row.at : new Date(row.at),
            actor: row.actor,
            role: row.role,
            kind: row.kind,
            outcome: row.outcome as ConsoleActionOutcome,
            summary: row.summary,
            referenceId: row.reference_id,
            storeKey: row.store_key
          }))
          return { actions, next: rows.length > options.limit ? actions.at(-1)?.id : undefined }
        }
      )

    return { record, page }
  })
}) {}
