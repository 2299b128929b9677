import * as fs from "node:fs"
import * as path from "node:path"
import { Data, Effect } from "effect"

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

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readOwner = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10)
    return Number.isFinite(pid) ? pid : undefined
  } catch {
    return undefined
  }
}

/** The live process other than this one that holds the data directory, if one does (nothing is taken). */
export const dataDirHolder = (dataDir: string): DataDirLockedError | undefined => {
  const owner = readOwner(path.join(dataDir, LOCK_FILE))
  return owner !== undefined && owner !== process.pid && isAlive(owner) ? new DataDirLockedError({ dataDir, pid: owner }) : undefined
}

/**
 * Takes the data directory for this process: a lock file holding our pid,
 * created exclusively. A lock left by a dead process (kill -9) is taken over;
 * one held by a live process fails with a message saying what to do.
 * Released when the scope closes.
 */
export const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      fs.mkdirSync(dataDir, { recursive: true })
      const file = path.join(dataDir, LOCK_FILE)
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
          return Effect.succeed(file)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") return Effect.die(error)
          const owner = readOwner(file)
          if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
            return Effect.fail(new DataDirLockedError({ dataDir, pid: owner }))
          }
          fs.rmSync(file, { force: true })
        }
      }
      return Effect.fail(new DataDirLockedError({ dataDir, pid: readOwner(file) ?? -1 }))
    }),
    (file) =>
      Effect.sync(() => {
        if (readOwner(file) === process.pid) fs.rmSync(file, { force: true })
      })
  )
