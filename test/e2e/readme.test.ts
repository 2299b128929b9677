import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { exited, tempDir, waitForHttp } from "../support/cli.js"

/**
 * Every `npx podsync …` command the README shows, run as shown, in order, in a
 * scratch copy of the project's config folder (the example's relative paths
 * then hold). `npm ci`, `npm start` and `npm test` are run by CI and the demo test.
 */
const readmeCommands = (): ReadonlyArray<ReadonlyArray<string>> => {
  const readme = fs.readFileSync("README.md", "utf8")
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
  return blocks.flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.startsWith("npx podsync "))
    .map((line) => line.replace(/^npx podsync /, "").split(/\s+/))
}

const bin = path.resolve("bin/podsync.js")
const background: Array<ChildProcess> = []
const dir = tempDir("readme")

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("exit", (code) => resolve({ code, output }))
  })

const start = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout.on("data", (d) => (output += d))
  child.stderr.on("data", (d) => (output += d))
  background.push(child)
  return { child, output: () => output }
}

afterAll(async () => {
  for (const child of background) child.kill("SIGTERM")
  await Promise.all(background.map(exited))
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("the README's commands", () => {
  it("all run as shown", async () => {
    fs.cpSync("config", path.join(dir, "config"), { recursive: true })
    const commands = readmeCommands()
    expect(commands.map((c) => c[0])).toEqual(expect.arrayContaining(["simulate", "start", "status", "mappings", "check"]))
    for (const args of commands) {
      if (args[0] === "simulate") {
        const sims = start(args)
        await waitFor(() => (sims.output().match(/listening on/g) ?? []).length === 5, 60_000, sims.output)
      } else if (args[0] === "start") {
        start(args)
        await waitForHttp("http://127.0.0.1:8080/readyz", 90_000)
      } else {
        const result = await run(args)
        expect(result.code, `podsync ${args.join(" ")}\n${result.output}`).toBe(0)
      }
    }
    // The suggested mapping file was written where the README says.
    expect(fs.existsSync(path.join(dir, "config/mappings/acme-shopify.draft.csv"))).toBe(true)
  }, 240_000)
})

const waitFor = async (done: () => boolean, timeoutMs: number, output: () => string) => {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms:\n${output()}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
