import * as fs from "node:fs"
import { parse, stringify } from "yaml"
import { getJson } from "./pipeline.js"

/**
 * Waiting for a running daemon's loops to turn, instead of sleeping for a guess of how long they take:
 * what a test asserts "after more turns" holds once the daemon has pulled the store again, seen through
 * its own /status (each pull saves the store's cursor, `pulls[].lastPullAt`).
 */

/** Rewrites a daemon config in place so that it pulls and reconciles every second, not every 2 s. */
export const pullEverySecond = (config: string): string => {
  const document = parse(fs.readFileSync(config, "utf8"))
  document.schedules = { ...document.schedules, pull: "* * * * * *", reconcile: "* * * * * *" }
  fs.writeFileSync(config, stringify(document))
  return config
}

const lastPullOf = async (port: number, storeKey: string): Promise<string | null | undefined> => {
  const status = await getJson(`http://127.0.0.1:${port}/status`)
  return (status.pulls as Array<{ storeKey: string; lastPullAt: string | null }>).find((p) => p.storeKey === storeKey)?.lastPullAt
}

/**
 * Waits until the daemon at `port` has finished `pulls` more pulls of each of `storeKeys` (its last
 * pull's time moved that many times) since the call; fails after `timeoutMs`. A failed read counts as
 * no news (the daemon busy).
 */
export const waitForPulls = async (port: number, storeKeys: ReadonlyArray<string>, pulls: number, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  // The last pull's time as first read (null: never pulled yet), then as last read.
  const last = new Map<string, string | null>()
  const seen = new Map<string, number>(storeKeys.map((k) => [k, 0]))
  for (;;) {
    for (const key of storeKeys) {
      const at = await lastPullOf(port, key).catch(() => undefined)
      if (at === undefined) continue
      if (!last.has(key)) last.set(key, at)
      else if (at !== null && at !== last.get(key)) {
        last.set(key, at)
        seen.set(key, seen.get(key)! + 1)
      }
    }
    if (storeKeys.every((k) => seen.get(k)! >= pulls)) return
    if (Date.now() > deadline) {
      throw new Error(`the daemon did not pull ${pulls} more times within ${timeoutMs} ms: ${JSON.stringify([...seen])}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}
