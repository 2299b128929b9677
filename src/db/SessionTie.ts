import { Context, Duration, Effect, Layer, Ref } from "effect"
import { type RawBuilder, sql } from "kysely"
import { Db, type SessionConnection } from "./Db.js"

/**
 * The class id of the advisory locks that tie replicas to their sessions ("pods"; the rate budget's
 * locks use another). The object id is `hashtext(owner)`: a collision can only make a dead
 * replica's claims look alive, never a live one's dead, and then they keep to their lease's expiry.
 */
export const SESSION_LOCK_CLASS = 0x706f6473

/** How often the tie's connection is asked whether it is still the same session. */
const CHECK_EVERY = Duration.seconds(2)
const FIRST_BACKOFF_MS = 1_000
const MAX_BACKOFF_MS = 10_000
/** How long the daemon's start waits for the tie's first connection before working untied. */
const FIRST_TIE_WITHIN = Duration.seconds(5)

/**
 * Whether this replica's claims are tied to its database session now: PostgreSQL, with a
 * session-level advisory lock keyed by the owner id held on a connection of its own. Claims made
 * while tied are marked so (`lease_session`): another replica takes them the moment that session
 * ends (the process killed, its host gone), and never while it lives, even past their lease's
 * expiry (a stopped or slow replica comes back to its own work). Untied (PGlite, where a new
 * process releases its dead predecessor's claims at start; a transaction pooler, where a session
 * is not a connection; the tie's connection lost), claims keep to their lease's expiry.
 */
export interface SessionTieShape {
  readonly tied: Effect.Effect<boolean>
}

export class SessionTie extends Context.Tag("podsync/SessionTie")<SessionTie, SessionTieShape>() {
  /** Never tied: every claim keeps to its lease's expiry. */
  static readonly untied: SessionTieShape = { tied: Effect.succeed(false) }
}

/**
 * SQL: whether the replica named by `owner` (a column or value) holds its session lock now, in
 * this database. Any session may read `pg_locks`.
 */
export const ownerSessionLive = (owner: RawBuilder<unknown> | string): RawBuilder<boolean> =>
  sql<boolean>`exists (
    select 1 from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.classid = ${sql.lit(SESSION_LOCK_CLASS)}::oid and l.objsubid = 2
      and l.objid = hashtext(${typeof owner === "string" ? sql.ref(owner) : owner})::oid
      and l.database = (select oid from pg_database where datname = current_database()))`

type Held = { readonly connection: SessionConnection; readonly backend: number }

const open = (openSession: NonNullable<Db["Type"]["openSession"]>, owner: string) =>
  Effect.tryPromise(async (): Promise<Held | "taken"> => {
    const connection = await openSession()
    try {
      const [row] = await connection.query<{ got: boolean; backend: number }>(
        "select pg_try_advisory_lock($1::int, hashtext($2)) as got, pg_backend_pid() as backend",
        [SESSION_LOCK_CLASS, owner]
      )
      if (row?.got !== true) {
        await connection.end()
        return "taken"
      }
      return { connection, backend: row.backend }
    } catch (error) {
      await connection.end()
      throw error
    }
  })

/**
 * Unties the claims, job leases and alert channel leases `owner` made under a session of its own that is gone: they keep
 * to their lease's expiry from now on, as another replica would have left them had it looked while
 * that session was gone (OrdersRepo.claim, JobLeases). Run as a tie is taken, before claims say
 * tied again: the new session's lock has the same key, so without this a claim whose release
 * failed while the server was away (the work ended, its release could not be written) would look
 * held by a live session for as long as this process lives, and its order or job never run again.
 * The work still in flight under them keeps its claims by renewing them, as untied work does.
 */
const untieLostSessionClaims = (db: Db["Type"], owner: string) =>
  db.use(async (k) => {
    await k.updateTable("store_orders").set({ lease_session: false }).where("lease_owner", "=", owner)
      .where("lease_session", "=", true).execute()
    await k.updateTable("job_leases").set({ session: false }).where("owner", "=", owner).where("session", "=", true).execute()
    await k.updateTable("alert_channels").set({ lease_session: false }).where("lease_owner", "=", owner).where("lease_session", "=", true)
      .execute()
  })

/** The tie of `owner` for as long as the scope lasts (see `SessionTieShape`). */
export const makeSessionTie = (owner: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const openSession = db.openSession
    if (openSession === undefined) return SessionTie.untied
    const tied = yield* Ref.make(false)
    let current: Held | undefined

    const untie = Effect.gen(function*() {
      yield* Ref.set(tied, false)
      const held = current
      current = undefined
      if (held === undefined) return
      // Unlocked before the connection ends, so that nobody reads the lock as held while its backend exits.
      yield* Effect.promise(() =>
        held.connection.query("select pg_advisory_unlock($1::int, hashtext($2))", [SESSION_LOCK_CLASS, owner]).catch(() => undefined)
      )
      yield* Effect.promise(() => held.connection.end())
    })
    yield* Effect.addFinalizer(() => untie)

    /** One tie: taken, then watched until it breaks. Answers whether to try again. */
    const tieOnce = Effect.gen(function*() {
      const held = yield* open(openSession, owner)
      if (held === "taken") {
        yield* Effect.logWarning(
          "another live database session holds this replica's session lock; its claims keep to their leases' expiry"
        ).pipe(Effect.annotateLogs({ owner }))
        return "retry" as const
      }
      current = held
      // Untied at once: the lock went with the session, and claims made now must not say otherwise.
      held.connection.onLost(() => Effect.runSync(Ref.set(tied, false)))
      const untied = yield* Effect.either(untieLostSessionClaims(db, owner))
      if (untied._tag === "Left") {
        yield* untie
        return "retry" as const
      }
      yield* Ref.set(tied, true)
      return "watch" as const
    })

    // Every check asks the session for its backend: another answer means a pooler hands out
    // server connections per transaction, so the lock says nothing of this replica's life.
    const watch = Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(CHECK_EVERY)
        const held = current
        if (held === undefined) return "retry" as const
        const answer = yield* Effect.tryPromise(() => held.connection.query<{ backend: number }>("select pg_backend_pid() as backend", []))
          .pipe(Effect.either)
        if (answer._tag === "Left") {
          yield* Effect.logWarning("the connection tying this replica's claims to its session broke; tying them again")
            .pipe(Effect.annotateLogs({ owner, cause: String(answer.left.error) }))
          return "retry" as const
        }
        if (answer.right[0]?.backend !== held.backend) {
          yield* Effect.logWarning(
            "the database hands this replica's session to other server processes (a transaction pooler?): its claims are not tied to it and keep to their leases' expiry"
          ).pipe(Effect.annotateLogs({ owner }))
          return "stop" as const
        }
      }
    })

    const first = yield* tieOnce.pipe(Effect.timeout(FIRST_TIE_WITHIN), Effect.either)
    if (first._tag === "Left") {
      yield* untie
      yield* Effect.logWarning("could not tie this replica's claims to its database session yet; trying again")
        .pipe(Effect.annotateLogs({ owner }))
    }
    yield* Effect.gen(function*() {
      let backoffMs = 0
      for (;;) {
        if (current === undefined) {
          const outcome = yield* tieOnce.pipe(Effect.orElseSucceed(() => "retry" as const))
          if (outcome === "retry") {
            backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(FIRST_BACKOFF_MS, backoffMs * 2))
            yield* Effect.sleep(Duration.millis(backoffMs))
            continue
          }
        }
        backoffMs = 0
        const next = yield* watch
        yield* untie
        if (next === "stop") return
      }
    }).pipe(Effect.forkScoped)
    return { tied: Ref.get(tied) } satisfies SessionTieShape
  })

/** The tie of the replica `owner` (given by the composition root). */
export const SessionTieLive = <R>(owner: Effect.Effect<string, never, R>) => Layer.scoped(SessionTie, Effect.flatMap(owner, makeSessionTie))
