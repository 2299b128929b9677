import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { exited, freePort, tempDir, waitForHttp } from "../support/cli.js"

/**
 * Every `npx podsync …` command the README shows, run as shown, in order, in a
 * scratch copy of the project's config folder (the example's relative paths
 * then hold), after the steps it gives in words (the example copied as
 * config/podsync.yaml, its environment set). `npm ci`, `npm start` and `npm test` are run by CI and the demo test.
 */
const readmeCommands = (): ReadonlyArray<{ readonly section: string; readonly args: ReadonlyArray<string> }> => {
  const readme = fs.readFileSync("README.md", "utf8")
  // Each "## " section with its shell blocks' lines.
  return readme.split(/^## /m).flatMap((section) => {
    const title = section.split("\n")[0] ?? ""
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
    return blocks.flatMap((block) => block.split("\n"))
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter((line) => line.startsWith("npx podsync "))
      .map((line) => ({ section: title, args: line.replace(/^npx podsync /, "").split(/\s+/) }))
  })
}

const bin = path.resolve("bin/podsync.js")

/**
 * The ports the README's commands listen on (simulators 9100-9104, the daemon 8080), each moved to a
 * free one: the test then runs beside another simulator or daemon on this machine. `simulate` is given
 * its port options (the README's CLI table names them), the scratch copy's config files are pointed at
 * the moved ports, and the example's variables carry them.
 */
const SIM_PORT_OPTIONS = ["--pod-port", "--shopify-port", "--woocommerce-port", "--etsy-port", "--jsonfeed-port"]
const simPorts = [9100, 9101, 9102, 9103, 9104]
const ports = new Map<number, number>()
for (const fixed of [...simPorts, 8080]) {
  let port = await freePort()
  while ([...ports.values()].includes(port)) port = await freePort()
  ports.set(fixed, port)
}
const moved = (fixed: number) => ports.get(fixed)!
/** `text` with every `127.0.0.1:<fixed port>` and the server's `port: 8080` moved to the free ports. */
const movePorts = (text: string) =>
  text.replace(/127\.0\.0\.1:(8080|910[0-4])\b/g, (_, fixed: string) => `127.0.0.1:${moved(Number(fixed))}`)
    .replace(/^(\s*port: )8080\b/m, `$1${moved(8080)}`)

/**
 * What "Going live" asks a seller to set (the example has no fallbacks), here the local
 * simulators' values, as config/simulators.yaml has them.
 */
const sellerEnv: Record<string, string> = {
  POD_BASE_URL: `http://127.0.0.1:${moved(9100)}`,
  POD_CLIENT_KEY: "sim-client-key",
  POD_CLIENT_SECRET: "sim-client-secret",
  POD_WEBHOOK_URL: "https://podsync.example.net/webhooks/pod",
  ACME_POD_STORE_ID: "store-acme",
  ACME_SHOPIFY_TOKEN: "shpat_sim_token",
  ACME_SHOPIFY_WEBHOOK_SECRET: "shopify-sim-webhook-secret",
  ACME_SHOPIFY_BASE_URL: `http://127.0.0.1:${moved(9101)}`,
  ACME_WOO_POD_STORE_ID: "store-acme-woo",
  ACME_WOO_URL: `http://127.0.0.1:${moved(9102)}`,
  ACME_WOO_CONSUMER_KEY: "ck_5f1c0f2b8e4d4a7c9b3e6d2a1f0e9c8b7a6d5e4f",
  ACME_WOO_CONSUMER_SECRET: "cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
  ACME_WOO_WEBHOOK_SECRET: "woo-sim-webhook-secret",
  ACME_ETSY_POD_STORE_ID: "store-acme-etsy",
  ACME_ETSY_SHOP_ID: "48213795",
  ACME_ETSY_KEYSTRING: "1aa2bb3cc4dd5ee6ff7gg8hh",
  ACME_ETSY_SHARED_SECRET: "etsysimsharedsecret",
  ACME_ETSY_REFRESH_TOKEN: "873421905.sim-refresh-token-0001",
  ACME_ETSY_BASE_URL: `http://127.0.0.1:${moved(9103)}`,
  ACME_FEED_POD_STORE_ID: "store-acme-feed",
  ACME_FEED_BASE_URL: `http://127.0.0.1:${moved(9104)}/podsync/v1`,
  ACME_FEED_TOKEN: "jf_sim_token",
  ACME_FEED_WEBHOOK_SECRET: "jsonfeed-sim-webhook-secret",
  // Alerts to addresses where nothing listens: nothing in these commands sends one.
  ALERTS_SLACK_URL: "http://127.0.0.1:9/slack",
  ALERTS_SMTP_HOST: "127.0.0.1",
  ALERTS_SMTP_USER: "podsync",
  ALERTS_SMTP_PASSWORD: "smtp-password",
  ALERTS_EMAIL_FROM: "podsync <podsync@shop.example.net>",
  ALERTS_EMAIL_TO: "owner@shop.example.net",
  ALERTS_WEBHOOK_URL: "http://127.0.0.1:9/tickets",
  ALERTS_WEBHOOK_SECRET: "tickets-secret",
  PODSYNC_PUBLIC_URL: `http://127.0.0.1:${moved(8080)}`,
  // The example's server port (${PODSYNC_PORT:-8080}).
  PODSYNC_PORT: String(moved(8080))
}
const env = { ...process.env, ...sellerEnv }
const background: Array<ChildProcess> = []
const dir = tempDir("readme")

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("exit", (code) => resolve({ code, output }))
  })

const start = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
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
    // Going live, step 2: the example copied as config/podsync.yaml (its variables set, above).
    fs.copyFileSync(path.join(dir, "config/podsync.example.yaml"), path.join(dir, "config/podsync.yaml"))
    // The scratch copy's files that name the simulators' or the daemon's ports name the free ones.
    for (const file of fs.readdirSync(path.join(dir, "config")).filter((f) => f.endsWith(".yaml"))) {
      const text = fs.readFileSync(path.join(dir, "config", file), "utf8")
      fs.writeFileSync(path.join(dir, "config", file), movePorts(text))
    }
    const commands = readmeCommands()
    expect(commands.map((c) => c.args[0])).toEqual(expect.arrayContaining(["simulate", "start", "status", "mappings", "check"]))
    let section = commands[0]?.section
    const daemons: Array<ChildProcess> = []
    for (const { section: next, args } of commands) {
      // A new section is a new sitting: the daemon the last one started is stopped (Ctrl-C in its
      // terminal), the simulators stay (they stand in for the real services).
      if (next !== section) {
        for (const daemon of daemons.splice(0)) daemon.kill("SIGTERM")
        await Promise.all(background.filter((c) => c.killed).map(exited))
        section = next
      }
      if (args[0] === "simulate") {
        const sims = start([...args, ...SIM_PORT_OPTIONS.flatMap((option, i) => [option, String(moved(simPorts[i]!))])])
        await waitFor(() => (sims.output().match(/listening on/g) ?? []).length === 5, 60_000, sims.output)
      } else if (args[0] === "start") {
        const daemon = start(args)
        daemons.push(daemon.child)
        await waitForHttp(`http://127.0.0.1:${moved(8080)}/readyz`, 90_000).catch((error: Error) => {
          throw new Error(`podsync ${args.join(" ")}: ${error.message}\n${daemon.output()}`)
        })
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

describe("the README's reference sections", () => {
  it("list every command the CLI has", () => {
    // The CLI names its commands in a usage mistake's answer.
    const usage = spawnSync(process.execPath, [bin, "no-such-command"], { encoding: "utf8" }).stderr
    const commands = /a command of: ([a-z, -]+)/.exec(usage)?.[1]?.split(", ") ?? []
    expect(commands.length).toBeGreaterThan(5)
    const table = fs.readFileSync("README.md", "utf8").split(/^## /m).find((s) => s.startsWith("CLI")) ?? ""
    expect(commands.filter((command) => !table.includes(`| \`${command}`))).toEqual([])
  })

  it("list every HTTP endpoint the daemon serves", () => {
    const routes = fs.readdirSync("src/http").filter((f) => f.endsWith(".ts")).flatMap((file) =>
      [...fs.readFileSync(path.join("src/http", file), "utf8").matchAll(/HttpRouter\.(get|post)\(\s*"([^"]+)"/g)].map((m) =>
        `${m[1]!.toUpperCase()} ${m[2]!.replace(":storeKey", "<store key>").replace(":name", "<file>")}`
      )
    )
    expect(routes.length).toBeGreaterThan(10)
    const section = fs.readFileSync("README.md", "utf8").split(/^## /m).find((s) => s.startsWith("HTTP")) ?? ""
    expect(routes.filter((route) => !section.includes(`\`${route}`))).toEqual([])
  })
})
