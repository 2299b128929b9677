import { it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Scope, TestClock } from "effect"
import { afterAll, describe, expect } from "vitest"
import {
  dataDirHolder,
  formatRecord,
  holderVerdict,
  lockDataDir,
  type LockRecord,
  parseRecord,
  parseStat,
  type ProcessEntry,
  type ProcessTable,
  STALE_MS,
  systemProcessTable
} from "../../src/db/DataDirLock.js"

const NOW = Date.parse("2026-11-30T10:00:00Z")
const TABLE = "boot-1/pid:[4026531836]"

/** A process table with the given entries; a pid not listed is absent. */
const tableOf = (entries: Record<number, ProcessEntry>, name: string | undefined = TABLE): ProcessTable => ({
  name,
  entry: (pid) => entries[pid] ?? "absent",
  signalable: (pid) => entries[pid] !== undefined
})

const podsync = (startTime: string, state = "S", flags = 0x400100): ProcessEntry => ({
  state,
  flags,
  startTime,
  cmdline: "node /app/bin/podsync.js start --config podsync.yaml"
})

const record = (fields: Partial<LockRecord> = {}): LockRecord => ({
  pid: 313,
  startTime: "4242",
  table: TABLE,
  token: "abc",
  touchedAtMs: NOW,
  ...fields
})

describe("the data-folder lock's holder check", () => {
  it("holds for the live podsync the lock names", () => {
    expect(holderVerdict(record(), tableOf({ 313: podsync("4242") }), 1, NOW)).toEqual({ held: true, why: "live holder" })
  })

  it("does not hold for a zombie: killed with -9 and not yet reaped by its parent", () => {
    expect(holderVerdict(record(), tableOf({ 313: podsync("4242", "Z") }), 1, NOW)).toEqual({ held: false, why: "zombie" })
  })

  it("does not hold for a process already dying (kill -9 delivered, memory being freed)", () => {
    expect(holderVerdict(record(), tableOf({ 313: podsync("4242", "R", 0x400104) }), 1, NOW)).toEqual({ held: false, why: "exiting" })
  })

  it("does not hold when the pid now belongs to another process (another start time), even a node one", () => {
    expect(holderVerdict(record(), tableOf({ 313: podsync("9999") }), 1, NOW)).toEqual({ held: false, why: "pid reused" })
  })

  it("does not hold when no process has the pid, nor for this process itself", () => {
    expect(holderVerdict(record(), tableOf({}), 1, NOW)).toEqual({ held: false, why: "no such process" })
    expect(holderVerdict(record(), tableOf({ 313: podsync("4242") }), 313, NOW)).toEqual({ held: false, why: "self" })
  })

  it("reads an earlier version's pid-only lock as held by a node process alone", () => {
    const old = { pid: 313, touchedAtMs: NOW }
    expect(holderVerdict(old, tableOf({ 313: podsync("1") }), 1, NOW).held).toBe(true)
    const shell: ProcessEntry = { state: "S", flags: 0, startTime: "1", cmdline: "/bin/sh -c sleep 100" }
    expect(holderVerdict(old, tableOf({ 313: shell }), 1, NOW)).toEqual({ held: false, why: "not podsync" })
  })

  it("falls back to kill(pid, 0) where /proc cannot say", () => {
    const noProc = (alive: boolean): ProcessTable => ({ name: undefined, entry: () => undefined, signalable: () => alive })
    expect(holderVerdict(record(), noProc(true), 1, NOW)).toEqual({ held: true, why: "signalable" })
    expect(holderVerdict(record(), noProc(false), 1, NOW)).toEqual({ held: false, why: "no such process" })
  })

  it("holds a lock from another container or host while its holder keeps touching it", () => {
    const elsewhere = record({ table: "boot-2/pid:[4026532000]" })
    // Its pid means nothing here (here it is this test's own pid, or nobody's).
    expect(holderVerdict(elsewhere, tableOf({}), 313, NOW + STALE_MS - 1)).toEqual({ held: true, why: "recently touched" })
    expect(holderVerdict(elsewhere, tableOf({}), 313, NOW + STALE_MS)).toEqual({ held: false, why: "stale" })
  })

  it("parses /proc/<pid>/stat with spaces and parentheses in the command name", () => {
    const stat = "313 (node (podsync) x) Z 1 313 313 0 -1 4194564 100 0 0 0 5 3 0 0 20 0 11 0 123456 1000 10 18446744073709551615"
    expect(parseStat(stat)).toEqual({ state: "Z", flags: 4194564, startTime: "123456" })
  })

  it("writes a record that earlier versions read as a pid, and reads it back", () => {
    const text = formatRecord({ pid: 77, startTime: "55", table: TABLE, token: "t0" })
    expect(Number.parseInt(text, 10)).toBe(77)
    expect(parseRecord(text, NOW)).toEqual({ pid: 77, startTime: "55", table: TABLE, token: "t0", touchedAtMs: NOW })
  })
})

/** Runs `sh -c script` and answers the pid its first output line names, and the shell to kill afterwards. */
const spawnReporting = (script: string) =>
  new Promise<{ pid: number; stop: () => void }>((resolve, reject) => {
    const child = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.once("data", (d: Buffer) => resolve({ pid: Number.parseInt(d.toString(), 10), stop: () => child.kill("SIGKILL") }))
    child.once("error", reject)
  })

const lockFileOf = (dir: string) => path.join(dir, "podsync.lock")

describe.runIf(fs.existsSync("/proc/self/stat"))("the data-folder lock against this machine's processes", () => {
  const dirs: Array<string> = []
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-lock-"))
    dirs.push(dir)
    return dir
  }
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

  it.effect("is taken over from a zombie holder (a child its parent never reaped)", () =>
    Effect.gen(function*() {
      // The shell forks a short `sleep` then becomes a long one, which never waits for it: a real zombie
      // once the short one ends (after the shell's exec, so the shell itself cannot have reaped it).
      const zombie = yield* Effect.promise(() => spawnReporting("sleep 1 & echo $!; exec sleep 30"))
      try {
        const table = systemProcessTable()
        const zombieEntry = () => {
          const found = table.entry(zombie.pid)
          return typeof found === "object" && found.state === "Z" ? found : undefined
        }
        for (let waited = 0; waited < 15_000 && zombieEntry() === undefined; waited += 100) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        }
        const entry = table.entry(zombie.pid)
        expect(typeof entry === "object" && entry.state).toBe("Z")
        const dir = freshDir()
        const startTime = (entry as ProcessEntry).startTime
        fs.writeFileSync(lockFileOf(dir), formatRecord({ pid: zombie.pid, startTime, ...(table.name ? { table: table.name } : {}) }))
        // kill(pid, 0) still answers for it: the check that refused restarts.
        expect(table.signalable(zombie.pid)).toBe(true)
        expect(yield* dataDirHolder(dir)).toBeUndefined()
        yield* Effect.scoped(lockDataDir(dir))
      } finally {
        zombie.stop()
      }
    }))

  it.effect("refuses while a live holder runs, and is taken over once its pid is reused by an unrelated process", () =>
    Effect.gen(function*() {
      const holder = yield* Effect.promise(() => spawnReporting("echo $$; exec sleep 30"))
      try {
        const table = systemProcessTable()
        const entry = table.entry(holder.pid) as ProcessEntry
        const dir = freshDir()
        const name = table.name ? { table: table.name } : {}
        fs.writeFileSync(lockFileOf(dir), formatRecord({ pid: holder.pid, startTime: entry.startTime, ...name }))
        expect((yield* dataDirHolder(dir))?.pid).toBe(holder.pid)
        const refused = yield* Effect.exit(Effect.scoped(lockDataDir(dir)))
        expect(Exit.isFailure(refused)).toBe(true)
        // The same pid, another start time: what a container restarted on a shared volume sees.
        const reused = String(Number(entry.startTime) - 1)
        fs.writeFileSync(lockFileOf(dir), formatRecord({ pid: holder.pid, startTime: reused, ...name }))
        expect(yield* dataDirHolder(dir)).toBeUndefined()
        yield* Effect.scoped(lockDataDir(dir))
      } finally {
        holder.stop()
      }
    }))

  it.effect("names its holder, is touched while held (Clock time) and removed on release", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      yield* TestClock.setTime(NOW)
      const scope = yield* Scope.make()
      yield* Scope.extend(lockDataDir(dir), scope)
      const text = fs.readFileSync(lockFileOf(dir), "utf8")
      const written = parseRecord(text, 0)!
      expect(written.pid).toBe(process.pid)
      expect(written.startTime).toBe((systemProcessTable().entry(process.pid) as ProcessEntry).startTime)
      expect(written.token).toMatch(/^[0-9a-f]{16}$/)
      yield* TestClock.adjust("5 seconds")
      expect(fs.statSync(lockFileOf(dir)).mtimeMs).toBe(NOW + 5_000)
      yield* Scope.close(scope, Exit.void)
      expect(fs.existsSync(lockFileOf(dir))).toBe(false)
    }))
})
