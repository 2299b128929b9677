import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { exampleConfig, exited, freePort, podsync, spawnPodsync, tempDir, waitForHttp } from "../support/cli.js"
import { migratedDataFolder } from "../support/databaseTemplate.js"

/** podsync as a seller types it: one voice for every mistake, whichever command and whoever found it. */
const dir = tempDir("cli-voice")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const DEMO = ["--config", "config/demo.yaml"]

describe("a usage mistake", () => {
  it("exits 2, says the mistake in podsync's words, then the command's own usage", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string, string]> = [
      [["report", "--from", "today", ...DEMO], "podsync: --from today: expected a date (2026-11-20)", "usage: podsync report "],
      [["demo", "--orders", "2"], "podsync: --orders must be a whole number of at least 4, got 2", "usage: podsync demo "],
      [["simulate", "--orders", "2"], "podsync: --orders takes 0, or 4 or more", "usage: podsync simulate "],
      [["demo", "--orders", "ten"], 'podsync: --orders expects a whole number, got "ten"', "usage: podsync demo "],
      [["mappings", "suggest", ...DEMO], "podsync: --store is required", "usage: podsync mappings suggest "],
      [["report", "--stor", "demo-shopify", ...DEMO], "podsync: unknown option --stor; did you mean --store?", "usage: podsync report "],
      [["statsu"], 'podsync: unknown command "statsu"; did you mean status?', "usage: podsync <command>"],
      [
        ["mappings", "sugest"],
        'podsync: unknown command "mappings sugest"; did you mean mappings suggest?',
        "usage: podsync mappings suggest "
      ],
      [["mappings"], "podsync: podsync mappings needs a command: suggest or load", "usage: podsync mappings suggest "]
    ]
    // Each is a process of its own: asked all at once.
    const results = await Promise.all(cases.map(([args]) => podsync(args)))
    for (const [i, result] of results.entries()) {
      const [args, said, usage] = cases[i]!
      expect(result.code, args.join(" ")).toBe(2)
      const [first = "", second = ""] = result.stderr.split("\n")
      expect(first, args.join(" ")).toContain(said)
      expect(second, args.join(" ")).toContain(usage)
      expect(result.stderr).not.toMatch(/is not a integer|Received unknown argument|Invalid subcommand|unexpected failure/)
    }
  })

  it("names the configured stores for a wrong --store, with the one probably meant, in every command that takes it", async () => {
    const commands = [["explain", "#1001"], ["pull"], ["report"], ["mappings", "load"], ["mappings", "suggest"]]
    const results = await Promise.all(commands.map((command) => podsync([...command, "--store", "demo-shopfy", ...DEMO])))
    for (const [i, result] of results.entries()) {
      expect(result.code, commands[i]!.join(" ")).toBe(2)
      expect(result.stderr).toMatch(
        /^podsync: no store "demo-shopfy" in config\/demo\.yaml; did you mean "demo-shopify"\? \(its stores: demo-shopify\)\nusage: podsync /
      )
    }
    // Nothing near: the stores alone.
    expect((await podsync(["pull", "--store", "nope", ...DEMO])).stderr).toContain(
      'podsync: no store "nope" in config/demo.yaml (its stores: demo-shopify)'
    )
  })

  it("--help says the least --orders takes", async () => {
    const [demo, simulate] = await Promise.all([podsync(["demo", "--help"]), podsync(["simulate", "--help"])])
    expect(demo.stdout).toMatch(/--orders N\n\s+how many shop orders to generate \(at least 4;/)
    expect(simulate.stdout).toMatch(/--orders N\n\s+put this many paid orders .*: 0, or at least 4/)
  })
})

describe("podsync check", () => {
  it("refuses a POD webhook address that is plain HTTP off this machine, naming the key", async () => {
    const file = path.join(dir, "http-webhooks.yaml")
    const webhooks = (url: string) =>
      fs.writeFileSync(
        file,
        fs.readFileSync("config/simulators.yaml", "utf8").replace(/^pod:\n/m, `pod:\n  webhooks: { publicUrl: "${url}" }\n`)
      )
    webhooks("http://podsync.shop.example.net/webhooks/pod")
    const refused = await podsync(["check", "--config", file])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      "pod.webhooks.publicUrl: expected a public https:// URL (the POD service delivers webhooks over HTTPS only; http:// only to this machine"
    )
    // On this machine, for a trial against the simulator, plain HTTP is fine.
    webhooks("http://127.0.0.1:8080/webhooks/pod")
    expect((await podsync(["check", "--config", file, "--unverified-ok"])).stderr).not.toContain("pod.webhooks.publicUrl")
  })
})

describe("a port already taken", () => {
  it("is said by simulate with the port, the simulator and the option that moves it, without a stack trace", async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as net.AddressInfo).port
    try {
      const ports = ["--pod-port", "0", "--woocommerce-port", "0", "--etsy-port", "0", "--jsonfeed-port", "0"]
      const result = await podsync(["simulate", ...ports, "--shopify-port", String(port)])
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        `podsync: cannot start the Shopify simulator on 127.0.0.1:${port}: the port is in use (another podsync simulate, or a demo, ` +
          "still running?); stop what listens there, or pass --shopify-port N (0: any free port)\n"
      )
    } finally {
      taken.close()
    }
  })
})

describe("a command whose configuration is not the running daemon's", () => {
  it("is told so, with both files, instead of an answer about the daemon's own", async () => {
    const port = await freePort()
    const own = exampleConfig(dir, port)
    // Another file reaching the same daemon (the same server address): a copy under another name.
    const other = path.join(dir, "other.yaml")
    fs.copyFileSync(own, other)
    // A migrated data folder (a copy): the daemon needs one, this is not about making it.
    migratedDataFolder(path.join(dir, "data"))
    const daemon = spawnPodsync(["start", "--config", own])
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000)
      const refused = await podsync(["mappings", "load", "--config", other])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `podsync: the podsync daemon on 127.0.0.1:${port} runs with ${fs.realpathSync(own)}, not ${fs.realpathSync(other)}: ` +
          `run the command with --config ${fs.realpathSync(own)}`
      )
      const pulled = await podsync(["pull", "--config", other])
      expect(pulled.code).toBe(1)
      expect(pulled.stderr).toContain(`runs with ${fs.realpathSync(own)}, not ${fs.realpathSync(other)}`)
      // Its own file, by another path (relative): the daemon answers.
      const loaded = await podsync(["mappings", "load", "--config", path.relative(process.cwd(), own)])
      expect(loaded.stdout).toContain("(loaded by the running daemon)")
      expect(loaded.code).toBe(0)
    } finally {
      daemon.kill("SIGTERM")
      await exited(daemon)
    }
  }, 120_000)
})
