import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Clock, Data, Effect, Schedule } from "effect"

export class DataDirLockedError extends Data.TaggedError("DataDirLockedError")<{
  readonly dataDir: string
  readonly pid: number
}> {
  override get message() {
    return `The embedded database in ${this.dataDir} is in use by another podsync process (pid ${this.pid}). ` +
      `Stop that process first, or, while it runs, use commands that ask it over HTTP (status, explain, report). ` +
      `If no such process exists, delete ${path.join(this.dataDir, LOCK_FILE)}.`
  }
}

const LOCK_FILE = "podsync.lock"

/**
 * The holder touches its lock this often, and a lock untouched for `STALE_MS` is a dead holder's.
 * Only read when the holder cannot be looked up in this process table (another container's pid
 * namespace, another host on a shared volume): there, a pid says nothing.
 */
const TOUCH_EVERY = "5 seconds"
export const STALE_MS = 20_000

/**
 * What the lock file says of its holder. Its first line is the pid alone (what earlier versions
 * wrote and read); the others name the process beyond its pid, which the kernel reuses: its start
 * time (`/proc/<pid>/stat` field 22, clock ticks since boot), the process table it is in (boot id
 * and pid namespace) and a random token that only its own release matches.
 */
export interface LockRecord {
  readonly pid: number
  readonly startTime?: string
  readonly table?: string
  readonly token?: string
  /** When the holder last touched the lock (ms since the epoch). */
  readonly touchedAtMs: number
}

/** A process as `/proc/<pid>/stat` and `/proc/<pid>/cmdline` show it. */
export interface ProcessEntry {
  /** One letter: R, S, D, T, t, Z (zombie), X (dead), I... */
  readonly state: string
  /** The kernel's flags word (field 9): PF_EXITING marks a process already dying (after kill -9). */
  readonly flags: number
  readonly startTime: string
  readonly cmdline: string
}

/** What this process can learn of another: the process table seen through /proc, else only kill(pid, 0). */
export interface ProcessTable {
  /** This process table's name (boot id and pid namespace); undefined without /proc. */
  readonly name: string | undefined
  /** The entry of `pid`; "absent" when no such process; undefined when /proc cannot say. */
  readonly entry: (pid: number) => ProcessEntry | "absent" | undefined
  /** kill(pid, 0): whether some process has this pid. */
  readonly signalable: (pid: number) => boolean
}

export type HolderVerdict =
  | { readonly held: true; readonly why: "live holder" | "recently touched" | "signalable" }
  | {
    readonly held: false
    readonly why: "self" | "no such process" | "zombie" | "exiting" | "pid reused" | "not podsync" | "stale"
  }

const PF_EXITING = 0x4

/**
 * Whether the process a lock names still holds it, told from the record and the process table:
 * a dead, dying (kill -9 already delivered), zombie or unrelated process (the pid reused, seen by
 * another start time) does not. A record from another process table (another container or host
 * on a shared volume) is held while its holder keeps touching it.
 */
export const holderVerdict = (record: LockRecord, table: ProcessTable, self: number, nowMs: number): HolderVerdict => {
  if (record.table !== undefined && table.name !== undefined && record.table !== table.name) {
    return nowMs - record.touchedAtMs < STALE_MS ? { held: true, why: "recently touched" } : { held: false, why: "stale" }
  }
  if (record.pid === self) return { held: false, why: "self" }
  const entry = table.entry(record.pid)
  if (entry === undefined) return table.signalable(record.pid) ? { held: true, why: "signalable" } : { held: false, why: "no such process" }
  if (entry === "absent") return { held: false, why: "no such process" }
  if (entry.state === "Z" || entry.state === "X" || entry.state === "x") return { held: false, why: "zombie" }
  if ((entry.flags & PF_EXITING) !== 0) return { held: false, why: "exiting" }
  if (record.startTime !== undefined) {
    return entry.startTime === record.startTime ? { held: true, why: "live holder" } : { held: false, why: "pid reused" }
  }
  // A lock of an earlier version names the pid alone: held by a node process only.
  return /node|podsync/.test(entry.cmdline) ? { held: true, why: "live holder" } : { held: false, why: "not podsync" }
}

/** Parses `/proc/<pid>/stat`: the command (field 2) is in parentheses and may hold spaces and parentheses. */
export const parseStat = (stat: string): Omit<ProcessEntry, "cmdline"> | undefined => {
  const close = stat.lastIndexOf(")")
  if (close < 0) return undefined
  // Fields from 3 on: state is field 3, flags field 9, starttime field 22.
  const fields = stat.slice(close + 2).trim().split(/\s+/)
  const state = fields[0]
  const flags = Number(fields[6])
  const startTime = fields[19]
  return state === undefined || startTime === undefined || !Number.isFinite(flags) ? undefined : { state, flags, startTime }
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/** The process table as this process sees it through /proc (Linux), or kill(pid, 0) alone elsewhere. */
export const systemProcessTable = (procRoot = "/proc"): ProcessTable => {
  const proc = fs.existsSync(path.join(procRoot, "self", "stat"))
  const bootId = readText(path.join(procRoot, "sys", "kernel", "random", "boot_id"))?.trim()
  let namespace: string | undefined
  try {
    namespace = fs.readlinkSync(path.join(procRoot, "self", "ns", "pid"))
  } catch {
    namespace = undefined
  }
  return {
    name: proc && bootId !== undefined && namespace !== undefined ? `${bootId}/${namespace}` : undefined,
    entry: (pid) => {
      if (!proc) return undefined
      const dir = path.join(procRoot, String(pid))
      try {
        const stat = parseStat(fs.readFileSync(path.join(dir, "stat"), "utf8"))
        if (stat === undefined) return undefined
        return { ...stat, cmdline: (readText(path.join(dir, "cmdline")) ?? "").replaceAll("\0", " ") }
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : undefined
      }
    },
    signalable: (pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch (error) {
        // EPERM: the process exists but belongs to someone else.
        return (error as NodeJS.ErrnoException).code === "EPERM"
      }
    }
  }
}

const FIELDS = ["start", "table", "token"] as const

export const formatRecord = (record: Omit<LockRecord, "touchedAtMs">): string =>
  [
    String(record.pid),
    ...(record.startTime === undefined ? [] : [`start=${record.startTime}`]),
    ...(record.table === undefined ? [] : [`table=${record.table}`]),
    ...(record.token === undefined ? [] : [`token=${record.token}`])
  ].join("\n") + "\n"

export const parseRecord = (text: string, touchedAtMs: number): LockRecord | undefined => {
  const [first, ...rest] = text.split("\n")
  const pid = Number.parseInt((first ?? "").trim(), 10)
  if (!Number.isFinite(pid)) return undefined
  const values = new Map<string, string>()
  for (const line of rest) {
    const at = line.indexOf("=")
    const key = line.slice(0, at)
    if (at > 0 && (FIELDS as ReadonlyArray<string>).includes(key)) values.set(key, line.slice(at + 1).trim())
  }
  const startTime = values.get("start")
  const table = values.get("table")
  const token = values.get("token")
  return {
    pid,
    touchedAtMs,
    ...(startTime === undefined ? {} : { startTime }),
    ...(table === undefined ? {} : { table }),
    ...(token === undefined ? {} : { token })
  }
}

const readRecord = (file: string): LockRecord | undefined => {
  try {
    const touchedAtMs = fs.statSync(file).mtimeMs
    return parseRecord(fs.readFileSync(file, "utf8"), touchedAtMs)
  } catch {
    return undefined
  }
}

/** This process, as its lock names it. */
const ownRecord = (table: ProcessTable): Omit<LockRecord, "touchedAtMs"> => {
  const entry = table.entry(process.pid)
  const startTime = typeof entry === "object" ? entry.startTime : undefined
  return {
    pid: process.pid,
    ...(startTime === undefined ? {} : { startTime }),
    ...(table.name === undefined ? {} : { table: table.name }),
    token: randomBytes(8).toString("hex")
  }
}

/** The live process other than this one that holds the data directory, if one does (nothing is taken). */
export const dataDirHolder = (dataDir: string, table: ProcessTable = systemProcessTable()) =>
  Effect.map(Clock.currentTimeMillis, (now): DataDirLockedError | undefined => {
    const record = readRecord(path.join(dataDir, LOCK_FILE))
    return record !== undefined && holderVerdict(record, table, process.pid, now).held
      ? new DataDirLockedError({ dataDir, pid: record.pid })
      : undefined
  })

/**
 * Takes the data directory for this process: a lock file naming this process (pid, start time,
 * process table, token), created exclusively. A lock left by a dead, dying or zombie process, or
 * one whose pid now belongs to another process, is taken over at once (a restart right after
 * kill -9 is never refused); one held by a live podsync fails with a message saying what to do.
 * The holder touches it while it holds it (for a holder in another process table), and removes
 * it when the scope closes if it is still its own.
 */
export const lockDataDir = (dataDir: string, table: ProcessTable = systemProcessTable()) =>
  Effect.gen(function*() {
    const file = path.join(dataDir, LOCK_FILE)
    const own = ownRecord(table)
    yield* Effect.acquireRelease(
      Effect.gen(function*() {
        fs.mkdirSync(dataDir, { recursive: true })
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            fs.writeFileSync(file, formatRecord(own), { flag: "wx" })
            return
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EEXIST") return yield* Effect.die(error)
            const record = readRecord(file)
            const now = yield* Clock.currentTimeMillis
            if (record !== undefined && holderVerdict(record, table, process.pid, now).held) {
              return yield* new DataDirLockedError({ dataDir, pid: record.pid })
            }
            // Removed only if it is still the lock judged dead: a process that took it meanwhile keeps it.
            if (readRecord(file)?.token === record?.token) fs.rmSync(file, { force: true })
          }
        }
        return yield* new DataDirLockedError({ dataDir, pid: readRecord(file)?.pid ?? -1 })
      }),
      () =>
        Effect.sync(() => {
          if (readRecord(file)?.token === own.token) fs.rmSync(file, { force: true })
        })
    )
    yield* Effect.forkScoped(
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        if (readRecord(file)?.token === own.token) fs.utimesSync(file, now, now)
      }).pipe(Effect.catchAllDefect(() => Effect.void), Effect.repeat(Schedule.spaced(TOUCH_EVERY)))
    )
    return file
  })
