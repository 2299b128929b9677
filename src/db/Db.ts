import { PGlite } from "@electric-sql/pglite"
import { Context, Data, Effect, Exit, FiberRef, Layer, Option, Redacted } from "effect"
import { Kysely, PostgresDialect } from "kysely"
import pg from "pg"
import { lockDataDir } from "./DataDirLock.js"
import { PgliteDialect } from "./PgliteDialect.js"
import type { Database } from "./schema.js"

export class DbError extends Data.TaggedError("DbError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `database ${this.operation} failed: ${reason}`
  }
}

export interface DbShape {
  readonly dialect: "postgres" | "pglite"
  /** The root handle: for the migrator and tools. Business code uses `use`. */
  readonly kysely: Kysely<Database>
  /** Runs queries on the current transaction when inside `transaction`, else on the pool. */
  readonly use: <A>(f: (db: Kysely<Database>) => Promise<A>) => Effect.Effect<A, DbError>
  /** Runs the effect in one transaction: committed when it succeeds, rolled back otherwise. Nested calls join the outer one. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | DbError, R>
  /**
   * PostgreSQL only: opens a connection of its own, outside the pool, for what lives as long as a
   * database session (the advisory lock that ties a replica's claims to it, SessionTie.ts).
   */
  readonly openSession?: () => Promise<SessionConnection>
}

/** One database session: statements on it, its end, and what ends it from the other side. */
export interface SessionConnection {
  readonly query: <R>(text: string, values: ReadonlyArray<unknown>) => Promise<ReadonlyArray<R>>
  /** Called once if the connection breaks (the server restarted, the network dropped it). */
  readonly onLost: (f: (cause: unknown) => void) => void
  readonly end: () => Promise<void>
}

export class Db extends Context.Tag("podsync/Db")<Db, DbShape>() {}

export interface DbOptions {
  /** A PostgreSQL URL; absent → embedded PGlite under dataDir. */
  readonly url: Option.Option<Redacted.Redacted<string>>
  /** Folder of the embedded database; "memory://" keeps it in memory (tests). */
  readonly dataDir: string
  /** PostgreSQL only: the schema to work in (tests give each suite its own). */
  readonly schema?: string
  /**
   * In-memory PGlite only: start from this copy of a database (PGlite's `dumpDataDir`) instead of
   * an empty one. Tests load one migrated copy rather than creating and migrating a database each.
   */
  readonly loadDataDir?: Blob
}

const wrap = (operation: string) => (cause: unknown) => new DbError({ operation, cause })

const makeShape = (
  dialect: DbShape["dialect"],
  kysely: Kysely<Database>,
  openSession?: DbShape["openSession"]
): DbShape => {
  const current = FiberRef.unsafeMake<Option.Option<Kysely<Database>>>(Option.none())

  const use: DbShape["use"] = (f) =>
    Effect.flatMap(
      FiberRef.get(current),
      (trx) => Effect.tryPromise({ try: () => f(Option.getOrElse(trx, () => kysely)), catch: wrap("query") })
    )

  const transaction: DbShape["transaction"] = (effect) =>
    Effect.flatMap(FiberRef.get(current), (outer) =>
      Option.isSome(outer)
        ? effect
        : Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const trx = yield* Effect.tryPromise({ try: () => kysely.startTransaction().execute(), catch: wrap("begin") })
            const exit = yield* Effect.exit(restore(Effect.locally(effect, current, Option.some(trx))))
            if (Exit.isSuccess(exit)) {
              yield* Effect.tryPromise({ try: () => trx.commit().execute(), catch: wrap("commit") }).pipe(
                Effect.tapError(() => Effect.promise(() => trx.rollback().execute().catch(() => undefined)))
              )
              return exit.value
            }
            // Roll back on failure and interruption alike: PGlite's single connection
            // would otherwise stay poisoned inside the aborted transaction.
            yield* Effect.promise(() => trx.rollback().execute().catch(() => undefined))
            return yield* exit
          })
        ))

  return { dialect, kysely, use, transaction, ...(openSession === undefined ? {} : { openSession }) }
}

// Same JavaScript values from both backends: int8 as a number while it is safe.
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === 20) {
      return (value: string) => {
        const n = BigInt(value)
        return n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER) ? n : Number(n)
      }
    }
    return pg.types.getTypeParser(oid, format as "text")
  }) as typeof pg.types.getTypeParser
}

const openPgSession = (settings: pg.ClientConfig) => async (): Promise<SessionConnection> => {
  const client = new pg.Client(settings)
  let lost: ((cause: unknown) => void) | undefined
  let ended = false
  const loseOnce = (cause: unknown) => {
    if (ended) return
    ended = true
    lost?.(cause)
  }
  // As for the pool's clients (below): a broken connection must not end the process.
  client.on("error", loseOnce)
  client.on("end", () => loseOnce(new Error("the database closed the connection")))
  await client.connect()
  return {
    query: async <R>(text: string, values: ReadonlyArray<unknown>) => (await client.query(text, [...values])).rows as Array<R>,
    onLost: (f) => {
      lost = f
    },
    end: async () => {
      ended = true
      await client.end().catch(() => undefined)
    }
  }
}

const postgres = (url: Redacted.Redacted<string>, schema: string | undefined) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const settings: pg.ClientConfig = {
        connectionString: Redacted.value(url),
        types: pgTypes,
        ...(schema ? { options: `-c search_path=${schema}` } : {})
      }
      const pool = new pg.Pool({ ...settings, max: 10 })
      // A client losing its server (a failover, a restart, an idle-timeout proxy, pg_terminate_backend)
      // must not end the process: pg emits 'error' on the client, and node throws an 'error' event
      // nobody listens to. The pool listens only while a client is idle, so every client gets its own
      // listener for its whole life. The query in flight, or the next one, fails with the cause and
      // is reported by its caller (watchDatabase: logged once, counted, /readyz unready); the pool
      // drops the broken client when it is released and connects anew for the next query.
      pool.on("error", () => undefined)
      pool.on("connect", (client) => client.on("error", () => undefined))
      return { kysely: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), settings }
    }),
    ({ kysely }) => Effect.promise(() => kysely.destroy())
  ).pipe(Effect.map(({ kysely, settings }) => makeShape("postgres", kysely, openPgSession(settings))))

/**
 * PGlite's memory is WebAssembly memory, which grows and never shrinks, and PostgreSQL's buffer
 * pool (128 MB by default) is touched in full as it is set up: a bare instance sat at about 290 MB
 * RSS, the floor of the whole daemon. A 16 MB pool brings it to about 160 MB; the files behind it
 * are in the operating system's page cache, so a miss costs a copy, not a disk read. Per-query
 * memory is lowered alike: podsync's queries are small.
 */
const EMBEDDED_SETTINGS = ["shared_buffers=16MB", "work_mem=2MB", "maintenance_work_mem=16MB", "temp_buffers=2MB"]

const embedded = (dataDir: string, loadDataDir: Blob | undefined) =>
  Effect.gen(function*() {
    const inMemory = dataDir.startsWith("memory://")
    if (!inMemory) yield* lockDataDir(dataDir)
    const pglite = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          PGlite.create(inMemory ? undefined : dataDir, {
            startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])],
            ...(inMemory && loadDataDir !== undefined ? { loadDataDir } : {})
          }),
        catch: wrap("open embedded database")
      }),
      (db) => Effect.promise(() => db.close().catch(() => undefined))
    )
    const kysely = new Kysely<Database>({ dialect: new PgliteDialect(pglite) })
    return makeShape("pglite", kysely)
  })

/** Real PostgreSQL when a URL is configured, else the embedded PGlite database. */
export const DbLive = (options: DbOptions) =>
  Layer.scoped(
    Db,
    Option.match(options.url, {
      onNone: () => embedded(options.dataDir, options.loadDataDir),
      onSome: (url) => postgres(url, options.schema)
    })
  )
