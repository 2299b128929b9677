import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { exampleConfig, exited, freePort, podsync, spawnPodsync, tempDir, waitForHttp } from "../support/cli.js"
import { migratedDataFolder, unmigratedDataFolder } from "../support/databaseTemplate.js"

const dir = tempDir("cli")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("podsync check", () => {
  it("prints OK for the shipped simulators' config, and that simulators that do not answer are not verified", async () => {
    expect((await podsync(["check", "--config", "config/simulators.yaml", "--unverified-ok"])).stdout).toMatch(
      /^OK: config\/simulators\.yaml is valid/
    )
    // Its addresses on a port nothing listens on (other tests may run the simulators on theirs meanwhile).
    const file = path.join(dir, "simulators-unanswered.yaml")
    fs.writeFileSync(file, fs.readFileSync("config/simulators.yaml", "utf8").replaceAll(/127\.0\.0\.1:910\d/g, "127.0.0.1:9"))
    const result = await podsync(["check", "--config", file])
    expect(result.stdout).toContain("POD: NOT VERIFIED")
    expect(result.code).toBe(3)
  })

  it("refuses the production example while its variables are unset, naming each", async () => {
    const result = await podsync(["check", "--config", "config/podsync.example.yaml"], { POD_CLIENT_KEY: "", POD_BASE_URL: "" })
    expect(result.stderr).toContain("pod.baseUrl: environment variable POD_BASE_URL is not set")
    expect(result.stderr).toContain("pod.clientKey: environment variable POD_CLIENT_KEY is not set")
    // Neither a Dev Dashboard app's client id and secret nor a legacy token: the section names both ways.
    expect(result.stderr).toContain("stores[0].shopify: expected clientId and clientSecret")
    expect(result.stdout).not.toContain("OK")
    expect(result.code).toBe(1)
  })

  it("finds the file through $PODSYNC_CONFIG", async () => {
    const result = await podsync(["check"], { PODSYNC_CONFIG: "config/demo.yaml" })
    expect(result.stdout).toMatch(/^OK: config\/demo\.yaml is valid/)
  })

  it("rejects a config with several mistakes, naming each by path, without a stack trace", async () => {
    const file = path.join(dir, "bad.yaml")
    fs.writeFileSync(
      file,
      [
        "server:",
        "  port: eighty",
        "pod:",
        "  baseUrl: https://pod.example.com",
        "  clientKey: ${PODSYNC_TEST_MISSING_KEY}",
        "  clientSecret: x",
        "stores:",
        "  - key: bad-store",
        "    platform: magento",
        '    podStoreId: "2"',
        "    mappings: b.csv",
        "schedules:",
        "  pull: every five minutes"
      ].join("\n")
    )
    const result = await podsync(["check", "--config", file])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain("pod.clientKey: environment variable PODSYNC_TEST_MISSING_KEY is not set")
    expect(result.stderr).toContain('server.port: expected a whole number, got "eighty"')
    expect(result.stderr).toContain('stores[0].platform: expected one of shopify, woocommerce, etsy, jsonfeed; got "magento"')
    expect(result.stderr).toContain('schedules.pull: invalid cron expression "every five minutes"')
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/)
    expect(result.stdout).not.toContain("OK")
  })

  it("says where it looked when the file is missing", async () => {
    const result = await podsync(["check", "--config", path.join(dir, "nope.yaml")])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/nope\.yaml.*file not found/s)
  })
})

describe("a config with a mistake, through each command that loads it", () => {
  const write = (name: string, lines: ReadonlyArray<string>) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, lines.join("\n") + "\n")
    return file
  }

  it("shows a YAML syntax error's line with a caret under the column, and no quoting hint without a ${NAME} there", async () => {
    const file = write("syntax.yaml", ["pod:", "  baseUrl: https://pod.example.com", "  timeoutMs: [1", "stores: []"])
    const result = await podsync(["check", "--config", file])
    expect(result.stderr).toBe(
      `podsync: ${file} is not a valid podsync configuration (1 error):\n` +
        "  line 4, column 1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]\n" +
        "    3 |   timeoutMs: [1\n" +
        "    4 | stores: []\n" +
        "        ^\n"
    )
    expect(result.stdout).toBe("")
    expect(result.code).toBe(1)
  })

  it("gives the ${NAME} quoting hint where a placeholder stands in the broken flow collection, and not for one lines away", async () => {
    const near = write("placeholder-near.yaml", [
      "pod:",
      "  baseUrl: https://pod.example.com",
      "  authHeaders: { key: ${KEY_HEADER}, secret: X-Secret }",
      "stores: []"
    ])
    const quoted = await podsync(["status", "--config", near])
    expect(quoted.stderr).toContain("line 3, column 24: YAML syntax error:")
    expect(quoted.stderr).toContain("(a ${NAME} inside { } or [ ] must be quoted)")
    // The caret stands under the placeholder's brace.
    expect(quoted.stderr).toContain("    3 |   authHeaders: { key: ${KEY_HEADER}, secret: X-Secret }\n                               ^\n")
    expect(quoted.stderr).not.toMatch(/\bat .*\.js:\d+|unexpected failure/)
    expect(quoted.code).toBe(1)

    const far = write("placeholder-far.yaml", [
      "pod:",
      "  clientKey: ${POD_CLIENT_KEY}",
      "  baseUrl: https://pod.example.com",
      "  timeoutMs: [1",
      "stores: []"
    ])
    const unquoted = await podsync(["explain", "acme-shopify:1", "--config", far])
    expect(unquoted.stderr).toContain("line 5, column 1: YAML syntax error:")
    expect(unquoted.stderr).toContain("    4 |   timeoutMs: [1\n    5 | stores: []\n        ^\n")
    expect(unquoted.stderr).not.toContain("must be quoted")
    expect(unquoted.code).toBe(1)
  })

  it("names the key a mistyped one probably meant, else the keys allowed there", async () => {
    const file = write("near-miss.yaml", [
      "pod:",
      "  baseUrl: https://pod.example.com",
      "  clientKey: k",
      "  clientSecret: s",
      "  rateLimt: { requests: 5 }",
      "stores:",
      "  - key: acme-shopify",
      "    platform: shopify",
      '    podStoreId: "42"',
      "    shopify: { shop: acme.myshopify.com, accessToken: t, webhookSecret: w }",
      "    mapings: ./acme.csv",
      "schedule:",
      '  pull: "* * * * *"',
      "mystery: 1"
    ])
    const result = await podsync(["check", "--config", file])
    expect(result.stderr).toContain('  schedule: unknown key "schedule"; did you mean "schedules"?\n')
    expect(result.stderr).toContain('  pod.rateLimt: unknown key "rateLimt"; did you mean "rateLimit"?\n')
    expect(result.stderr).toContain('  stores[0].mapings: unknown key "mapings"; did you mean "mappings"?\n')
    // One mistake, said once: not also "stores[0].mappings: is missing".
    expect(result.stderr).not.toContain("stores[0].mappings: is missing")
    expect(result.stderr).toContain(
      '  mystery: unknown key "mystery"; expected one of database, dataDir, log, tracing, server, console, webhooks, pod, stores, schedules, reports, alerts, pipeline\n'
    )
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+|unexpected failure/)
    expect(result.stdout).not.toContain("OK")
    expect(result.code).toBe(1)
  })
})

describe("podsync start on the embedded database", () => {
  it("serves /healthz, refuses a second start, and stops cleanly on SIGTERM within 5 s", async () => {
    const port = await freePort()
    const config = exampleConfig(dir, port)
    // A migrated copy: this is about the running daemon, not about making a new folder (migrate, below).
    migratedDataFolder(path.join(dir, "data"))
    const daemon = spawnPodsync(["start", "--config", config])
    try {
      const health = await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000)
      expect(await health.json()).toEqual({ status: "ok" })
      const ready = await waitForHttp(`http://127.0.0.1:${port}/readyz`)
      expect(await ready.json()).toMatchObject({ status: "ready" })

      const second = await podsync(["start", "--config", config])
      expect(second.code).toBe(1)
      expect(second.stderr).toMatch(/in use by another podsync process \(pid \d+\)/)
      // It never started: nothing else is said (no "podsync stopped", no log lines).
      expect(second.stderr.trim().split("\n")).toHaveLength(1)

      // Another data folder on the taken port: the port is said at once, alone, before anything starts.
      const elsewhere = path.join(dir, "elsewhere")
      fs.mkdirSync(elsewhere)
      const taken = await podsync(["start", "--config", exampleConfig(elsewhere, port)])
      expect(taken.code).toBe(1)
      expect(taken.stderr).toBe(
        `podsync: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port} (is another podsync running? change server.port)\n`
      )
      expect(fs.existsSync(path.join(elsewhere, "data"))).toBe(false)

      const status = await podsync(["status", "--config", config])
      expect(status.code).toBe(0)
      expect(status.stdout).toContain("running daemon")

      // The daemon holds the embedded database: these go through it, never to the lock.
      const pull = await podsync(["pull", "--config", config])
      expect(pull.stderr).not.toContain("in use")
      expect(pull.stdout).toContain("The running daemon is pulling")
      expect(pull.code).toBe(0)
      const reconcile = await podsync(["reconcile", "--config", config])
      expect(reconcile.stdout).toContain("The running daemon is reconciling")
      expect(reconcile.code).toBe(0)
      const unknown = await podsync(["explain", "nobody:1", "--config", config])
      expect(unknown.stderr).toBe(
        "podsync: no order nobody:1 (give its reference <store key>:<store order id>, e.g. acme-shopify:5550001, or the store's order name, e.g. #1006)\n"
      )
      expect(unknown.code).toBe(1)

      const stoppedAt = Date.now()
      daemon.kill("SIGTERM")
      const exit = await exited(daemon)
      expect(Date.now() - stoppedAt).toBeLessThan(5_000)
      expect(exit.code).toBe(0)
      expect(daemon.output()).toContain('"message":"podsync stopped"')
      // The lock is released: a new start succeeds.
      expect(fs.existsSync(path.join(dir, "data", "podsync.lock"))).toBe(false)
    } finally {
      daemon.kill("SIGKILL")
    }
  }, 120_000)

  it("migrate makes a new folder, applies the schema once, logging it, and then reports it up to date", async () => {
    const migrateDir = path.join(dir, "migrate")
    fs.mkdirSync(migrateDir)
    const config = exampleConfig(migrateDir, 0)
    const first = await podsync(["migrate", "--config", config])
    expect(first.stdout).toMatch(/Applied: 2026-11-21T00-00-01_initial/)
    // The config's level and format (the example's: info, auto) when no --log-level is given: migrating
    // says so, and a test's stderr is a pipe, so auto means JSON lines.
    expect(first.stderr).toContain('"message":"database migrated"')
    expect(JSON.parse(first.stderr.trim().split("\n")[0]!)).toMatchObject({ message: "database migrated", logLevel: "INFO" })
    const again = await podsync(["migrate", "--config", config])
    expect(again.stdout).toContain("The database is up to date.")
    // Two processes that each create an embedded database: more than 60 s on a starved 2-core machine.
  }, 150_000)
})

describe("a usage mistake", () => {
  it.each([
    [["bogus"], /podsync: unknown command "bogus"/, /usage: podsync <command> \[options\], a command of: start, migrate, check/],
    [
      ["status", "--confg", "x.yaml"],
      /podsync: unknown option --confg; did you mean --config\?/,
      /usage: podsync status \[--config FILE\]/
    ],
    [
      ["explain"],
      /Missing argument <order: <store key>:<store order id>, or the order name \(#1006\)>/,
      /usage: podsync explain \[--config FILE\] \[--store KEY\] <order/
    ],
    [["pull", "--store"], /--store/, /usage: podsync pull \[--config FILE\] \[--store KEY\]/],
    [["db", "move"], /podsync: --to is required/, /usage: podsync db move \[--config FILE\] --to postgres:\/\/USER@HOST/],
    [
      ["db", "move", "--config", "config/simulators.yaml", "--to", "mysql://podsync:hunter2@db/podsync"],
      /--to expects postgres:\/\/USER@HOST:PORT\/DATABASE, embedded or embedded:DIR; got "mysql:…"/,
      /usage: podsync db move/
    ],
    [
      ["--log-level", "loud", "status"],
      /--log-level expects one of trace, debug, info, warning, error, none; got "loud"/,
      /usage: podsync status/
    ]
  ])("podsync %j says what is wrong and the usage, exit 2, no dump", async (args, wrong, usage) => {
    const result = await podsync(args)
    const said = result.stdout + result.stderr
    expect(said).toMatch(wrong)
    expect(said).toMatch(usage)
    expect(said).not.toContain("unexpected failure")
    expect(said).not.toMatch(/\bat .*\.js:\d+/)
    expect(said).not.toContain("hunter2")
    expect(result.code).toBe(2)
  })
})

describe("--log-level", () => {
  // Each run migrates a database of its own, as PGlite's initdb left it (a copy: the making of a new
  // folder is the migrate test's), so that each has "database migrated" to log; they run side by side.
  // The config's own level and format, without --log-level: the migrate test above.
  const fresh = async (name: string, format?: string) => {
    const where = path.join(dir, name)
    fs.mkdirSync(where)
    const file = exampleConfig(where, 0)
    if (format !== undefined) fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("format: auto", `format: ${format}`))
    unmigratedDataFolder(path.join(where, "data"))
    return file
  }

  it("works before the command and after it, over the config's level; log.format: text writes readable lines", async () => {
    const [before, after, text] = await Promise.all([
      fresh("log-before").then((config) => podsync(["--log-level", "error", "migrate", "--config", config])),
      fresh("log-after").then((config) => podsync(["migrate", "--config", config, "--log-level=none"])),
      fresh("format-text", "text").then((config) => podsync(["migrate", "--config", config]))
    ])
    expect(before.stdout).toContain("Applied:")
    expect(before.stderr).toBe("")
    expect(after.stdout).toContain("Applied:")
    expect(after.stderr).toBe("")
    expect(text.stdout).toContain("Applied:")
    expect(text.stderr).toMatch(/INFO.*database migrated/)
    expect(text.stderr).not.toContain('"message"')
  }, 120_000)
})

describe("a command on a data folder the daemon never ran in", () => {
  it.each([["status"], ["explain", "acme-shopify:1"], ["reconcile"], ["pull"]])(
    "podsync %s says there is nothing yet and how to start, and creates nothing",
    async (...args) => {
      const where = path.join(dir, `never-${args[0]}`)
      fs.mkdirSync(where)
      const config = exampleConfig(where, 0)
      const result = await podsync([...args, "--config", config])
      expect(result.stderr).toContain("nothing here yet")
      expect(result.stderr).toContain("podsync start")
      expect(result.stderr).not.toContain("does not exist")
      expect(result.code).toBe(1)
      expect(fs.existsSync(path.join(where, "data"))).toBe(false)
    },
    30_000
  )
})

describe.runIf(process.env.TEST_DATABASE_URL)("a command on a PostgreSQL database the daemon never ran on", () => {
  it("says there is nothing yet, and migrates nothing", async () => {
    const schema = `never_${Date.now()}`
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    try {
      await admin.query(`create schema "${schema}"`)
      const where = path.join(dir, "never-postgres")
      fs.mkdirSync(where)
      const config = exampleConfig(where, 0)
      const result = await podsync(["status", "--config", config], {
        DATABASE_URL: `${process.env.TEST_DATABASE_URL}?options=-c%20search_path%3D${schema}`
      })
      expect(result.stderr).toContain("nothing here yet: the configured PostgreSQL database holds no podsync data")
      expect(result.code).toBe(1)
      const tables = await admin.query("select count(*)::int as n from information_schema.tables where table_schema = $1", [schema])
      expect(tables.rows[0].n).toBe(0)
    } finally {
      await admin.query(`drop schema if exists "${schema}" cascade`)
      await admin.end()
    }
  }, 30_000)
})

describe("podsync simulate", () => {
  const ports = ["--pod-port", "0", "--shopify-port", "0", "--woocommerce-port", "0", "--etsy-port", "0", "--jsonfeed-port", "0"]
  const untilHints = async (child: ReturnType<typeof spawnPodsync>) => {
    const deadline = Date.now() + 30_000
    while (!child.output().includes("Ctrl-C stops the simulators")) {
      if (Date.now() > deadline) throw new Error(`no hints within 30 s:\n${child.output()}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return child.output()
  }
  const urlOf = (output: string, name: string) => new RegExp(`${name} listening on (\\S+)`).exec(output)?.[1] ?? ""

  it("puts --orders N paid orders in the Shopify simulator and says how to move them along", async () => {
    const child = spawnPodsync(["simulate", "--orders", "6", ...ports])
    try {
      const output = await untilHints(child)
      expect(output).toContain("Put 6 paid orders in the Shopify simulator")
      expect(output).toContain("npx podsync start --config config/simulators.yaml")
      const { orders } = await (await fetch(`${urlOf(output, "shopify")}/__sim/orders`)).json() as { orders: ReadonlyArray<unknown> }
      expect(orders).toHaveLength(6)
      // The printed commands work as printed.
      for (const line of output.split("\n").filter((l) => l.trim().startsWith("curl"))) {
        const run = spawnSync("sh", ["-c", `${line.trim()} --fail --silent --show-error`], { encoding: "utf8" })
        expect(run.status, `${line}\n${run.stderr}`).toBe(0)
      }
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 60_000)

  it("without --orders, says how to put one in, and the printed command does", async () => {
    const child = spawnPodsync(["simulate", ...ports])
    try {
      const output = await untilHints(child)
      expect(output).toContain("No orders yet: start with --orders N")
      const lines = output.split("\n")
      const start = lines.findIndex((l) => l.includes("/__sim/orders"))
      // The command and its continuation line, joined as the shell joins them.
      const command = `${lines[start]!.trim().replace(/\\$/, "")} ${lines[start + 1]!.trim()}`
      const run = spawnSync("sh", ["-c", `${command} --fail --silent --show-error`], { encoding: "utf8" })
      expect(run.status, run.stderr).toBe(0)
      const { orders } = await (await fetch(`${urlOf(output, "shopify")}/__sim/orders`)).json() as { orders: ReadonlyArray<unknown> }
      expect(orders).toHaveLength(1)
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 60_000)
})

describe("--help", () => {
  // A help text is the same whichever test asks: each is spawned once, and shared.
  const helps = new Map<string, ReturnType<typeof podsync>>()
  const help = (args: ReadonlyArray<string>) => {
    const key = JSON.stringify(args)
    if (!helps.has(key)) helps.set(key, podsync(args))
    return helps.get(key)!
  }

  it("lists every command on a line of at most 100 columns, with no colour codes off a terminal and no generic lines", async () => {
    const result = await podsync(["--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain("\u001b[")
    expect(result.stdout).not.toMatch(/A user-defined piece of text|This setting is optional|--completions|--wizard/)
    for (
      const command of [
        "start",
        "migrate",
        "check",
        "status",
        "simulate",
        "mappings",
        "pull",
        "reconcile",
        "explain",
        "report",
        "rehearse",
        "db",
        "console",
        "demo"
      ]
    ) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"))
    }
    expect(result.stdout.split("\n").every((line) => line.length <= 100)).toBe(true)
    expect(result.stdout).toContain("--log-level trace | debug | info | warning | error | none")
  })

  it("shows a command's usage and its own options, before or after the command name", async () => {
    for (const args of [["explain", "--help"], ["-h", "explain"]]) {
      const result = await help(args)
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^usage: podsync explain \[--config FILE\] \[--store KEY\]\n +<order/)
      expect(result.stdout).toContain("the store, when an order name or number is in several (its key; default: look in every store)")
      expect(result.stdout).not.toContain("\u001b[")
      expect(result.stdout).not.toContain("A user-defined piece of text")
    }
  })

  it("says every optional setting's default, in 100 columns, for every command and subcommand", async () => {
    const commands = [
      ["start"],
      ["migrate"],
      ["check"],
      ["status"],
      ["simulate"],
      ["mappings", "load"],
      ["mappings", "suggest"],
      ["pull"],
      ["reconcile"],
      ["explain"],
      ["report"],
      ["rehearse"],
      ["demo"],
      ["alerts", "test"],
      ["db", "move"],
      ["console", "hash-password"]
    ]
    // Asked all at once: each is a process of its own.
    const texts = await Promise.all(commands.map((command) => help([...command, "--help"])))
    for (const [i, { code, stdout }] of texts.entries()) {
      const command = commands[i]!
      expect(code).toBe(0)
      expect(stdout.split("\n")[0]).toMatch(new RegExp(`^usage: podsync ${command.join(" ")}\\b`))
      expect(stdout.split("\n").filter((line) => line.length > 100)).toEqual([])
      expect(stdout).not.toMatch(/One of the following|A directory\.|This setting is optional/)
      // Each option that takes a value and may be left out (in brackets in the usage, on any of its lines) says what happens then.
      const usage = stdout.slice(0, stdout.indexOf("\n\n"))
      const options = stdout.slice(stdout.indexOf("\nOPTIONS\n")).split(/\n(?=--|\(-h)/).slice(1)
      for (const option of options) {
        const [term = "", ...description] = option.split("\n")
        const takesValue = /^--\S+ \S/.test(term) && !term.startsWith("--log-level")
        const optional = usage.includes(`[${term.trim()}]`)
        if (takesValue && optional) expect(description.join(" "), `${command.join(" ")} ${term}`).toMatch(/default/)
      }
    }
    expect((await podsync(["--log-level", "debug", "status", "--help"])).stdout).toContain("default: log.level, else info")
  })
})
