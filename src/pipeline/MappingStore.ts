import { Clock, Data, Duration, Effect, Queue, Ref, Schedule } from "effect"
import { PipelineTriggers } from "./PipelineTriggers.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { sameRows } from "../domain/MappingCells.js"
import { chooseTable, describeIssues, fileStamp, type LoadOutcome, logIssues, readMappingFile } from "./MappingFile.js"
import { buildTable, type MappingFileProblem, type MappingTable } from "../domain/MappingTable.js"

/**
 * Every store's variant-matching table, in memory for the planner, mirrored
 * in `variant_mappings`. Files load at start and again on SIGHUP, on
 * `reload` (POST /mappings/reload, `podsync mappings load`) and when a poll
 * sees them change (every second: fs.watch misses edits on some volumes).
 * A file with issues keeps the store's previous table. A reload that changes
 * a table re-plans that store's held orders.
 */

export interface MappingStoreOptions {
  readonly stores: ReadonlyArray<{ readonly key: string; readonly mappings: string }>
  /** How often files are checked for changes (default 1 s); a change takes effect within 5 s. */
  readonly pollEvery?: Duration.DurationInput
  /** Reload every file on SIGHUP (default true). */
  readonly reloadOnSighup?: boolean
}

export interface StoreLoadReport {
  readonly storeKey: string
  readonly file: string
  /** "unchanged": the file's content is what is loaded; "unreadable": it could not be read, the table stays. */
  readonly outcome: LoadOutcome | "unchanged" | "unreadable"
  /** Rows of the table in force after this load. */
  readonly rows: number
  /** Each issue as `file:line: column: message`. */
  readonly issues: ReadonlyArray<string>
}

export class UnknownStoreError extends Data.TaggedError("UnknownStoreError")<{
  readonly storeKey: string
  readonly known: ReadonlyArray<string>
}> {
  override get message() {
    return `no store "${this.storeKey}" in the configuration (stores: ${this.known.join(", ") || "none"})`
  }
}

interface StoreState {
  readonly table: MappingTable | undefined
  /** The file version last looked at, so polls only read files that changed. */
  readonly stamp: string | undefined
  /** Digest of the text last parsed, and what loading it did. */
  readonly digest: string | undefined
  readonly outcome: LoadOutcome | undefined
}

const emptyTable = buildTable([])
const unloaded: StoreState = { table: undefined, stamp: undefined, digest: undefined, outcome: undefined }

export class MappingStore extends Effect.Service<MappingStore>()("podsync/MappingStore", {
  scoped: (options: MappingStoreOptions) =>
    Effect.gen(function*() {
      const repo = yield* MappingsRepo
      const triggers = yield* PipelineTriggers
      const states = yield* Ref.make(new Map<string, StoreState>())
      const oneAtATime = yield* Effect.makeSemaphore(1)
      const files = new Map(options.stores.map((s) => [s.key, s.mappings]))

      const stateOf = (key: string) => Effect.map(Ref.get(states), (m) => m.get(key) ?? unloaded)
      const setState = (key: string, state: StoreState) => Ref.update(states, (m) => new Map(m).set(key, state))
      const problems = yield* Ref.make<ReadonlyMap<string, MappingFileProblem>>(new Map())
      /** Keeps what the last load of a store's file said, for /status: a problem keeps the time it began. */
      const noteOutcome = (report: StoreLoadReport) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.update(problems, (all) => {
            const next = new Map(all)
            const issues = report.issues.filter((issue) => !issue.startsWith("warning: "))
            if (report.outcome === "loaded" || report.outcome === "unchanged") next.delete(report.storeKey)
            else {
              next.set(report.storeKey, {
                storeKey: report.storeKey,
                file: report.file,
                outcome: report.outcome,
                since: all.get(report.storeKey)?.since ?? new Date(now),
                rows: report.rows,
                issues
              })
            }
            return next
          }))

      /** Reads one store's file (when its stamp moved, or always when forced) and applies it. */
      const loadStore = (key: string, file: string, force: boolean) =>
        Effect.gen(function*() {
          const before = yield* stateOf(key)
          const stamp = yield* fileStamp(file)
          if (!force && stamp === before.stamp) return undefined
          const rows = before.table?.rows.length ?? 0
          const read = yield* Effect.either(readMappingFile(file))
          if (read._tag === "Left") {
            yield* Effect.logError(`${read.left.message}; the store keeps its ${rows} loaded rows`).pipe(
              Effect.annotateLogs({ store: key })
            )
            yield* setState(key, { ...before, stamp })
            return { storeKey: key, file, outcome: "unreadable", rows, issues: [read.left.message] } satisfies StoreLoadReport
          }
          const parsed = read.right
          if (parsed.digest === before.digest) {
            yield* setState(key, { ...before, stamp })
            // Same text: a file that loaded is "unchanged"; one with issues still has them.
            const outcome = before.outcome === undefined || before.outcome === "loaded" ? "unchanged" : before.outcome
            return { storeKey: key, file, outcome, rows, issues: describeIssues(parsed) } satisfies StoreLoadReport
          }
          yield* logIssues(key, parsed)
          const { outcome, table } = chooseTable(parsed, before.table)
          // A first load always writes: variant_mappings may hold rows of another file.
          const changed = before.table === undefined || !sameRows(before.table, table)
          let mirrored = true
          if (changed) {
            mirrored = yield* repo.replace(key, file, table).pipe(
              Effect.as(true),
              Effect.catchAll((error) => Effect.as(Effect.logError(`could not store the mappings of ${key}: ${error.message}`), false))
            )
          }
          // Not mirrored: forget the stamp so the next poll tries again.
          yield* setState(key, { table, stamp: mirrored ? stamp : undefined, digest: mirrored ? parsed.digest : undefined, outcome })
          yield* Effect.logInfo(
            outcome === "kept_previous"
              ? `${file} has ${parsed.issues.length} issue(s): store ${key} keeps its previous ${table.rows.length} rows until the file is fixed`
              : `loaded ${table.rows.length} mapping rows for store ${key} from ${file}` +
                (outcome === "partial" ? ` (${parsed.issues.length} invalid row(s) left out)` : "")
          ).pipe(Effect.annotateLogs({ store: key, outcome }))
          if (changed) yield* triggers.replanHeld(key)
          return { storeKey: key, file, outcome, rows: table.rows.length, issues: describeIssues(parsed) } satisfies StoreLoadReport
        })

      const selected = (storeKey: string | undefined) => {
        if (storeKey === undefined) return Effect.succeed([...files])
        const file = files.get(storeKey)
        return file !== undefined
          ? Effect.succeed([[storeKey, file] as [string, string]])
          : Effect.fail(new UnknownStoreError({ storeKey, known: [...files.keys()] }))
      }

      const loadSelected = (storeKey: string | undefined, force: boolean) =>
        Effect.flatMap(selected(storeKey), (entries) =>
          oneAtATime.withPermits(1)(
            Effect.forEach(
              entries,
              ([key, file]) => Effect.tap(loadStore(key, file, force), (r) => (r === undefined ? Effect.void : noteOutcome(r)))
            )
          )).pipe(Effect.map((reports) => reports.filter((r) => r !== undefined)))

      // Start: the table in variant_mappings is the "previous" one, so a file
      // broken while the daemon was down does not drop rows that worked, and
      // a file edited meanwhile re-plans the store's held orders.
      for (const [key, file] of files) {
        const stored = yield* repo.load(key)
        if (stored !== undefined && stored.sourceFile === file) {
          yield* setState(key, { ...unloaded, table: stored.table })
        }
        yield* loadSelected(key, true)
      }

      const pollAll = loadSelected(undefined, false).pipe(
        Effect.catchAllCause((cause) => Effect.logError("mapping file poll failed", cause))
      )
      // Everything was just loaded: the first poll comes one interval later.
      yield* Effect.forkScoped(Effect.schedule(pollAll, Schedule.spaced(options.pollEvery ?? Duration.seconds(1))))

      if (options.reloadOnSighup ?? true) {
        const hangups = yield* Queue.sliding<void>(1)
        const onHangup = () => void Queue.unsafeOffer(hangups, undefined)
        yield* Effect.acquireRelease(
          Effect.sync(() => process.on("SIGHUP", onHangup)),
          () => Effect.sync(() => process.off("SIGHUP", onHangup))
        )
        yield* Effect.forkScoped(Effect.forever(
          Queue.take(hangups).pipe(
            Effect.zipRight(Effect.logInfo("SIGHUP: reloading every mapping file")),
            Effect.zipRight(loadSelected(undefined, true)),
            Effect.catchAllCause((cause) => Effect.logError("mapping reload on SIGHUP failed", cause))
          )
        ))
      }

      return {
        /** The store's table in force (empty for a store without rows). */
        tableFor: (storeKey: string): Effect.Effect<MappingTable> => Effect.map(stateOf(storeKey), (s) => s.table ?? emptyTable),
        /** Re-reads one store's file, or every store's, now. */
        reload: (storeKey?: string) => loadSelected(storeKey, true),
        /** The stores whose mapping file does not load whole now, and since when. */
        problems: Effect.map(Ref.get(problems), (all) => [...all.values()]),
        /** The stores with a mapping file, in the configuration's order. */
        storeKeys: [...files.keys()] as ReadonlyArray<string>,
        /** The configured mapping file of a store. */
        fileOf: (storeKey: string): string | undefined => files.get(storeKey)
      }
    })
}) {}
