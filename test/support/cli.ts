import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { TEST_NODE_FLAGS } from "./nodeFlags.js"

/**
 * Runs the compiled CLI (bin/podsync.js → dist/) to completion without blocking this process: a
 * simulator or stand-in daemon in this process can answer it, and the test worker keeps talking to
 * vitest while a slow command runs.
 */
export const podsync = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, "bin/podsync.js", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    // "close", not "exit": the output is complete only once the pipes closed.
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Starts the compiled CLI in the background. */
export const spawnPodsync = (args: ReadonlyArray<string>, env: Record<string, string> = {}): ChildProcess & { output: () => string } => {
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, "bin/podsync.js", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (d) => (output += d))
  child.stderr.on("data", (d) => (output += d))
  return Object.assign(child, { output: () => output })
}

export const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))

/**
 * The ports the kernel hands out itself, to a listen on port 0 (every simulator's) and to every outgoing
 * connection: Linux's ip_local_port_range, else IANA's dynamic range.
 */
const EPHEMERAL: readonly [number, number] = (() => {
  try {
    const [low, high] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number)
    if (low !== undefined && high !== undefined && low > 0 && high >= low) return [low, high]
  } catch {
    // not Linux
  }
  return [49152, 65535]
})()

/** Where a daemon's port is chosen: below the kernel's own range if there is room, else above it. */
const CHOSEN: readonly [number, number] = EPHEMERAL[0] - 1 - 10_000 >= 5_000 ? [10_000, EPHEMERAL[0] - 1] : [EPHEMERAL[1] + 1, 65_535]

const listensOn = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

// Handed out by this process already: never twice.
const handedOut = new Set<number>()

/**
 * A port for a daemon (its `server.port`), free now. Chosen outside the kernel's ephemeral range: a port
 * from a listen on port 0, once closed, was soon the kernel's again, and under load another test's
 * simulator or an outgoing connection took it before the daemon listened there (EADDRINUSE), or a
 * test read another process on it. A port outside that range is taken only by another test choosing
 * the same one at random.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = CHOSEN[0] + Math.floor(Math.random() * (CHOSEN[1] - CHOSEN[0] + 1))
    if (handedOut.has(port) || !(await listensOn(port))) continue
    handedOut.add(port)
    return port
  }
  throw new Error(`no free port found between ${CHOSEN[0]} and ${CHOSEN[1]}`)
}

/** Polls a URL until it answers 2xx, or fails after the deadline. */
export const waitForHttp = async (url: string, timeoutMs = 30_000): Promise<Response> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url)
      if (response.ok) return response
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Runs the compiled CLI in `cwd` to its end (killed after `killAfterMs`), with what it printed. */
export const runPodsyncIn = async (cwd: string, args: ReadonlyArray<string>, killAfterMs: number, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [path.resolve("bin/podsync.js"), ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (d) => (stdout += d))
  child.stderr!.on("data", (d) => (stderr += d))
  const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs)
  const { code } = await exited(child)
  clearTimeout(timer)
  return { code, stdout, stderr }
}

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `podsync-${prefix}-`))

/** The shipped simulators' config (the example's keys, the simulators' values), pointed at a temporary data folder and port. */
export const exampleConfig = (dir: string, port: number) => {
  const text = fs.readFileSync("config/simulators.yaml", "utf8")
    .replace("dataDir: ./data", `dataDir: ${path.join(dir, "data")}`)
    .replace("port: 8080", `port: ${port}`)
  const file = path.join(dir, "podsync.yaml")
  fs.writeFileSync(file, text)
  return file
}
