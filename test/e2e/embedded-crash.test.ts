import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { describe, expect, it } from "vitest"
import { TEST_NODE_FLAGS } from "../support/nodeFlags.js"

interface Run {
  readonly opened: { readonly count: number; readonly max: number }
  readonly lastAck: number
  readonly acks: number
}

/**
 * Starts the writer, lets it commit for `runMs` after opening, then kill -9s it; on a loaded machine,
 * where `runMs` may pass before it has committed anything, it is killed at its `minAcks`-th commit
 * instead, so every run writes and the count of acknowledged writes does not depend on the load.
 */
const runAndKill = (dataDir: string, runMs: number, minAcks = 0): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, "test/fixtures/crash-writer.mjs", dataDir], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let opened: Run["opened"] | undefined
    let lastAck = 0
    let acks = 0
    let stderr = ""
    let timeUp = false
    const killWhenDue = () => {
      if (timeUp && acks >= minAcks) child.kill("SIGKILL")
    }
    child.stderr.on("data", (d) => (stderr += d))
    createInterface({ input: child.stdout }).on("line", (line) => {
      const [kind, a, b] = line.split(" ")
      if (kind === "open") {
        opened = { count: Number(a), max: Number(b) }
        setTimeout(() => {
          timeUp = true
          killWhenDue()
        }, runMs)
      } else if (kind === "ack") {
        lastAck = Number(a)
        acks++
        killWhenDue()
      }
    })
    child.on("exit", (code, signal) => {
      if (opened === undefined || signal !== "SIGKILL") {
        reject(new Error(`writer did not open and run (code ${code}, signal ${signal}): ${stderr}`))
      } else {
        resolve({ opened, lastAck, acks })
      }
    })
  })

describe("embedded database under kill -9", () => {
  it("reopens after every unclean exit with every acknowledged write present (20 kills)", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-crash-"))
    try {
      let acknowledged = 0
      let highestAck = 0
      for (let i = 0; i < 20; i++) {
        const run = await runAndKill(dataDir, 150 + ((i * 137) % 600), 1 + (i % 3))
        // Everything acknowledged before the previous kill is there when it reopens.
        expect(run.opened.count).toBeGreaterThanOrEqual(acknowledged)
        expect(run.opened.max).toBeGreaterThanOrEqual(highestAck)
        acknowledged += run.acks
        highestAck = Math.max(highestAck, run.lastAck)
      }
      const final = await runAndKill(dataDir, 50)
      expect(final.opened.count).toBeGreaterThanOrEqual(acknowledged)
      expect(acknowledged).toBeGreaterThan(20)
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 420_000) // 21 cold opens of the embedded database: about 110 s quiet, over 230 s on a loaded machine
})
