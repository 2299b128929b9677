// Counts the SQL statements the daemon sends, by the table they touch, and times them and the
// waits for a pooled connection, by wrapping the database drivers' methods in this process (pg's
// Client and Pool, PGlite). Measurement only: nothing is changed in what the statements do.
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"

const TABLE = /\b(?:from|into|update|table)\s+"?([a-z_][a-z0-9_]*)"?/i

const kindOf = (text: string): string => {
  const trimmed = text.trimStart().toLowerCase()
  const verb = trimmed.split(/\s+/, 1)[0] ?? "?"
  if (verb === "begin" || verb === "commit" || verb === "rollback" || verb.startsWith("savepoint") || verb === "release") {
    return "transaction control"
  }
  const table = TABLE.exec(trimmed)?.[1]
  if (trimmed.includes("pg_advisory")) return `${verb} (advisory lock)${table ? ` ${table}` : ""}`
  return `${verb} ${table ?? "(no table)"}`
}

let counting = false
const counts = new Map<string, number>()
const statementMs: Array<number> = []
const poolWaitMs: Array<number> = []

/** Counts the statement; returns a function to call when it has answered (undefined when not counted). */
const record = (query: unknown): (() => void) | undefined => {
  if (!counting) return undefined
  const text = typeof query === "string" ? query : typeof query === "object" && query !== null && "text" in query ? String(query.text) : ""
  if (text.includes("pg_stat_activity")) return undefined // the benchmark's own sampling
  const kind = kindOf(text)
  counts.set(kind, (counts.get(kind) ?? 0) + 1)
  const started = performance.now()
  return () => {
    if (counting) statementMs.push(performance.now() - started)
  }
}

const timed = (done: (() => void) | undefined, result: unknown) => {
  if (done !== undefined && result instanceof Promise) result.then(done, done)
  return result
}

const summary = (values: ReadonlyArray<number>) => {
  if (values.length === 0) return { count: 0, meanMs: 0, p95Ms: 0, maxMs: 0, totalMs: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const total = sorted.reduce((a, b) => a + b, 0)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
  return {
    count: sorted.length,
    meanMs: round(total / sorted.length),
    p95Ms: round(at(0.95)),
    maxMs: round(sorted[sorted.length - 1]!),
    totalMs: Math.round(total)
  }
}

const round = (value: number) => Math.round(value * 100) / 100

let installed = false

/** Wraps the drivers once; counting happens only between `start` and `stop`. */
export const installSqlCounter = () => {
  if (installed) return
  installed = true
  const pgQuery = pg.Client.prototype.query
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    return timed(record(args[0]), (pgQuery as (...a: Array<unknown>) => unknown).apply(this, args))
  } as typeof pg.Client.prototype.query
  const liteQuery = PGlite.prototype.query
  PGlite.prototype.query = function(this: PGlite, ...args: Array<unknown>) {
    return timed(record(args[0]), (liteQuery as (...a: Array<unknown>) => unknown).apply(this, args))
  } as typeof PGlite.prototype.query
  // kysely takes a client from the pool for every statement or transaction: the wait shows pool contention.
  const connect = pg.Pool.prototype.connect
  pg.Pool.prototype.connect = function(this: pg.Pool, ...args: Array<unknown>) {
    const started = performance.now()
    const result = (connect as (...a: Array<unknown>) => unknown).apply(this, args)
    if (counting && result instanceof Promise) result.then(() => counting && poolWaitMs.push(performance.now() - started), () => undefined)
    return result
  } as typeof pg.Pool.prototype.connect
}

export const sqlCounter = {
  start: () => {
    counts.clear()
    statementMs.length = 0
    poolWaitMs.length = 0
    counting = true
  },
  /**
   * Statements by kind since `start`, most frequent first, and their total; how long statements
   * took from send to answer (PGlite: including the wait for its single connection); how long
   * taking a client from pg's pool took (PostgreSQL only).
   */
  stop: () => {
    counting = false
    const byKind = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]))
    const total = [...counts.values()].reduce((a, b) => a + b, 0)
    return { total, byKind, statementLatency: summary(statementMs), poolWait: summary(poolWaitMs) }
  }
}

export type SqlTimings = ReturnType<typeof summary>
