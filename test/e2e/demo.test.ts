import { exec } from "node:child_process"
import { promisify } from "node:util"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { type DaemonOrder, type GeneratedOrder, progressOf } from "../../src/cli/demo/DemoProgress.js"
import { renderSummary } from "../../src/cli/demo/DemoSummary.js"
import type { DemoOutput } from "../../src/cli/demo/DemoTerminal.js"
import { planOrders } from "../../src/cli/demo/OrderPlan.js"
import { redraw, renderFrame, renderLine, type ViewModel } from "../../src/cli/demo/ProgressView.js"
import { putAnOrderIn } from "../../src/cli/demo/PutAnOrderIn.js"
import { runDemo } from "../../src/cli/demo/RunDemo.js"
import { runPodsyncIn, tempDir } from "../support/cli.js"
import { statusOf, waitFor } from "../support/pipeline.js"

const run = promisify(exec)

/** Output as CI sees it: not a terminal, so plain lines. */
const captured = () => {
  let text = ""
  const output: DemoOutput = { write: (chunk) => void (text += chunk), interactive: false, columns: 100 }
  return { output, text: () => text }
}

const countOf = (text: string, state: string): number => {
  const match = new RegExp(`^  ${state}\\s+(\\d+)  `, "m").exec(text.split("Final counts")[1] ?? "")
  return match === null ? 0 : Number(match[1])
}

describe("the demo's order stream", () => {
  it("places 2–3 orders with an unmapped item and one cancelled one, never first, the same for the same seed", () => {
    for (const count of [4, 8, 24, 100]) {
      const plan = planOrders(count)
      const kinds = plan.map((p) => p.kind)
      expect(kinds).toHaveLength(count)
      expect(kinds.filter((k) => k === "unmapped")).toHaveLength(count >= 20 ? 3 : 2)
      expect(kinds.filter((k) => k === "cancelled")).toHaveLength(1)
      expect(kinds[0]).toBe("mapped")
      expect(planOrders(count)).toEqual(plan)
    }
    const lines = planOrders(24).flatMap((p) => p.spec.lineItems)
    // Every tee carries the design its mapping row takes from the `design_front` attribute.
    expect(lines.filter((l) => l.sku.startsWith("UTS01-")).every((l) => l.customAttributes.some((a) => a.key === "design_front"))).toBe(
      true
    )
    expect(() => planOrders(3)).toThrow(RangeError)
  })

  it("counts an order as done only where the demo expects it", () => {
    const store = "demo-shopify"
    const generated: Array<GeneratedOrder> = [
      { storeKey: store, storeOrderId: "1", name: "#1001", kind: "mapped" },
      { storeKey: store, storeOrderId: "2", name: "#1002", kind: "unmapped" },
      { storeKey: store, storeOrderId: "3", name: "#1003", kind: "cancelled" },
      { storeKey: store, storeOrderId: "4", name: "#1004", kind: "mapped" }
    ]
    const orders: Array<DaemonOrder> = [
      { storeKey: store, storeOrderId: "1", state: "fulfilled", heldReason: null, heldMessage: null },
      { storeKey: store, storeOrderId: "2", state: "held", heldReason: "unmatched", heldMessage: "no mapping row" },
      { storeKey: store, storeOrderId: "3", state: "cancel_pending", heldReason: null, heldMessage: null },
      { storeKey: store, storeOrderId: "4", state: "held", heldReason: "address", heldMessage: "city too long" }
    ]
    const progress = progressOf(4, generated, orders)
    expect(progress.done).toBe(false)
    expect(progress.settled).toBe(3)
    expect(progress.outstanding).toEqual([{ storeKey: store, name: "#1004", kind: "mapped", state: "held" }])
    expect(progress.heldByReason).toEqual([["address", 1], ["unmatched", 1]])
    expect(progressOf(5, generated.slice(0, 3), orders.slice(0, 3)).done).toBe(false)
    expect(progressOf(3, generated.slice(0, 3), orders.slice(0, 3)).done).toBe(true)
    expect(progressOf(2, generated.slice(0, 2), []).byState).toEqual([["not pulled yet", 2]])
  })

  it("tells apart orders of different stores that share an id, and counts each store on its own", () => {
    const generated: Array<GeneratedOrder> = [
      { storeKey: "demo-woocommerce", storeOrderId: "1", name: "#1", kind: "mapped" },
      { storeKey: "demo-jsonfeed", storeOrderId: "1", name: "#1", kind: "unmapped" },
      { storeKey: "demo-etsy", storeOrderId: "7", name: "#7", kind: "mapped" }
    ]
    const orders: Array<DaemonOrder> = [
      { storeKey: "demo-woocommerce", storeOrderId: "1", state: "fulfilled", heldReason: null, heldMessage: null },
      { storeKey: "demo-jsonfeed", storeOrderId: "1", state: "held", heldReason: "unmatched", heldMessage: "no mapping row" }
    ]
    const stores = ["demo-shopify", "demo-woocommerce", "demo-etsy", "demo-jsonfeed"]
    const progress = progressOf(3, generated, orders, stores)
    expect(progress.settled).toBe(2)
    expect(progress.outstanding).toEqual([{ storeKey: "demo-etsy", name: "#7", kind: "mapped", state: "not pulled yet" }])
    expect(progress.stores.map((s) => [s.storeKey, s.generated, s.settled, s.byState])).toEqual([
      ["demo-shopify", 0, 0, []],
      ["demo-woocommerce", 1, 1, [["fulfilled", 1]]],
      ["demo-etsy", 1, 0, [["not pulled yet", 1]]],
      ["demo-jsonfeed", 1, 1, [["held", 1]]]
    ])
    // With several stores, every order is named with its store.
    const summary = renderSummary({
      ending: "timed_out",
      elapsedMs: 1000,
      progress,
      pod: undefined,
      podLimit: { requests: 100, windowSeconds: 10 },
      dataDir: "/tmp/d",
      report: { notWritten: "test" },
      configFile: "config/demo-all.yaml"
    })
    expect(summary).toContain("demo-jsonfeed #1 unmatched: no mapping row")
    expect(summary).toContain("demo-etsy #7 mapped order, not pulled yet")
    expect(summary).toMatch(/^ {2}demo-woocommerce\s+1 order: 1 shipped with tracking in the store$/m)
    expect(summary).toMatch(/^ {2}demo-etsy\s+1 order: waiting 1 to be read from the store$/m)
    // How to look around afterwards, with an order the demo made.
    expect(summary).toContain("  npx podsync status --config config/demo-all.yaml")
    expect(summary).toContain("  npx podsync explain '#1' --store demo-jsonfeed --config config/demo-all.yaml")
  })

  it("redraws a terminal frame in place, every line within the terminal's width", () => {
    const view: ViewModel = {
      elapsedMs: 12_300,
      speed: "24 orders, normal",
      daemonUrl: "http://127.0.0.1:8088",
      progress: progressOf(24, [], []),
      budget: {
        limit: 95,
        windowSeconds: 10,
        inUse: 40,
        inFlight: 2,
        byLane: { urgent: 10, normal: 25, background: 5 },
        waiting: undefined,
        paused: false
      },
      pod: undefined,
      factory: { checkedOut: 3, inProduction: 1, shipped: 2, heldBack: 0 },
      warnings: ["07:00:01 warning: ".padEnd(200, "x")]
    }
    const lines = renderFrame(view, 60)
    expect(lines.every((l) => l.length <= 60)).toBe(true)
    expect(lines.join("\n")).toContain("POD API 40 of 95 requests per 10 s used")
    expect(redraw(lines.length, lines).startsWith(`\x1b[${lines.length}F`)).toBe(true)
    expect(redraw(0, lines).startsWith("\x1b[2K")).toBe(true)
  })

  it("says how many orders wait for what, in a seller's words, never the budget's lanes", () => {
    const store = "demo-shopify"
    const generated: Array<GeneratedOrder> = Array.from({ length: 7 }, (_, i) => ({
      storeKey: store,
      storeOrderId: String(i + 1),
      name: `#${1001 + i}`,
      kind: i === 2 ? "unmapped" : "mapped"
    }))
    const at = (id: number, state: DaemonOrder["state"], heldReason: string | null = null): DaemonOrder => ({
      storeKey: store,
      storeOrderId: String(id),
      state,
      heldReason,
      heldMessage: heldReason === null ? null : "no mapping row for store SKU MUG-WHT-11OZ"
    })
    const orders = [
      at(1, "fulfilled"),
      at(2, "fulfilled"),
      at(3, "held", "unmatched"),
      at(4, "ready"),
      at(5, "drafted"),
      at(6, "in_production")
    ]
    const line = renderLine({
      elapsedMs: 12_300,
      speed: "8 orders, fast",
      daemonUrl: "http://127.0.0.1:8088",
      progress: progressOf(8, generated, orders),
      budget: {
        limit: 95,
        windowSeconds: 10,
        inUse: 21,
        inFlight: 1,
        byLane: { urgent: 0, normal: 2, background: 18 },
        waiting: undefined,
        paused: false
      },
      pod: undefined,
      factory: { checkedOut: 2, inProduction: 1, shipped: 2, heldBack: 0 }
    })
    expect(line).toBe(
      "[ 12.3 s] 7 of 8 orders placed · 2 shipped with tracking in the store · waiting: 1 to be read from the store, " +
        "1 for a draft at the POD service, 1 for the POD shop to check out, 1 being printed, 1 for you (1 with an unmatched SKU) · " +
        "POD API 21 of 95 requests per 10 s used"
    )
    expect(line).not.toMatch(/urgent|normal|background|lane|where expected/)
  })

  it("ends by saying how to put an order in, at each store simulator's real port, and how to watch it", () => {
    const lines = putAnOrderIn(
      [{ key: "demo-shopify", platform: "shopify", url: "http://127.0.0.1:40123" }],
      { url: "http://127.0.0.1:40200", port: 40200 },
      "/opt/podsync/config/demo.yaml"
    )
    const text = lines.join("\n")
    expect(text).toContain("The console is at http://127.0.0.1:40200/console")
    expect(text).toMatch(
      /^ {4}curl -s -X POST http:\/\/127\.0\.0\.1:40123\/__sim\/orders -H 'content-type: application\/json' -d '\{.*"sku":"UTS01-/m
    )
    expect(text).toContain("PODSYNC_DEMO_PORT=40200 npx podsync status --config /opt/podsync/config/demo.yaml")
    const all = putAnOrderIn(
      [
        { key: "demo-shopify", platform: "shopify", url: "http://127.0.0.1:1" },
        { key: "demo-woocommerce", platform: "woocommerce", url: "http://127.0.0.1:2" },
        { key: "demo-etsy", platform: "etsy", url: "http://127.0.0.1:3" },
        { key: "demo-jsonfeed", platform: "jsonfeed", url: "http://127.0.0.1:4" }
      ],
      { url: "http://127.0.0.1:5", port: 5 },
      "config/demo-all.yaml"
    ).join("\n")
    expect(all).toContain("  in demo-etsy:\n    curl -s -X POST http://127.0.0.1:3/__sim/receipts ")
    expect(all).toContain("curl -s -X POST http://127.0.0.1:4/__sim/orders ")
  })
})

describe("podsync demo", () => {
  it.live("runs 8 orders through the simulators and the daemon to their ends, then stops everything", () =>
    Effect.gen(function*() {
      const dir = tempDir("demo")
      const dataDir = path.join(dir, "data")
      // Left over from "an earlier demo": the demo wipes its data folder at start.
      fs.mkdirSync(dataDir, { recursive: true })
      fs.writeFileSync(path.join(dataDir, "PG_VERSION"), "17\n")
      fs.writeFileSync(path.join(dataDir, "stale-file"), "from before")
      const out = captured()
      // --console: after the summary the console stays served until told to stop (Ctrl-C); this test
      // reads the overview, then puts an order in as the demo says, as a seller types it, and
      // stops once that order has gone all the way (tracking in the store).
      const stop = yield* Deferred.make<void>()
      const overview = yield* Effect.fork(Effect.gen(function*() {
        for (;;) {
          const at = /The console is at (http:\/\/\S+\/console) /.exec(out.text())?.[1]
          if (at !== undefined) {
            const page = yield* Effect.promise(async () => {
              const response = await fetch(at)
              return { status: response.status, body: await response.text() }
            })
            const typed = /^ {4}(curl .*)$/m.exec(out.text())?.[1] ?? "no curl command printed"
            // Run by a shell, as typed, without blocking this process (the simulators answer from it).
            const placed = yield* Effect.promise(() => run(typed).then((answer) => JSON.parse(answer.stdout) as { name: string }))
            const daemon = at.replace(/\/console$/, "")
            const watched = yield* Effect.promise(() =>
              waitFor(() => statusOf(Number(new URL(daemon).port)), (s) => s.fulfilled === 6, 120_000)
            )
            yield* Deferred.succeed(stop, undefined)
            return { ...page, placed, watched, typed }
          }
          yield* Effect.sleep("200 millis")
        }
      }))
      const outcome = yield* runDemo({
        orders: 8,
        speed: "fast",
        keepData: false,
        dataDir,
        reportsDir: path.join(dir, "reports"),
        output: out.output,
        settleTimeout: "4 minutes",
        serveConsoleUntil: Deferred.await(stop)
      })
      const text = out.text()
      const consolePage = yield* Fiber.join(overview)
      expect(consolePage.status).toBe(200)
      // The two held orders, and the cancelled one when its draft was made first.
      expect(consolePage.body).toMatch(/data-testid="needs-a-person">[23]</)
      // The order the seller put in went all the way: one more shipped, with tracking in the store.
      expect(consolePage.placed.name).toBe("#1009")
      expect(consolePage.watched.fulfilled).toBe(6)
      expect(consolePage.typed).toContain(`${outcome.simulators.stores[0]?.url}/__sim/orders`)
      expect(text).toMatch(
        /^then watch it on the console \(http:\/\/127\.0\.0\.1:(\d+)\/console\), or with: PODSYNC_DEMO_PORT=\1 npx podsync status --config /m
      )

      expect(outcome.ending).toBe("finished")
      expect(outcome.progress.generated).toBe(8)
      const counts = Object.fromEntries(outcome.progress.byState)
      expect(counts.fulfilled).toBe(5)
      expect(counts.held).toBe(2)
      expect((counts.cancelled ?? 0) + (counts.cancel_pending ?? 0)).toBe(1)
      expect(outcome.progress.held.map((h) => h.reason)).toEqual(["unmatched", "unmatched"])
      // The service side: under its limit, no 429, each order drafted once.
      expect(outcome.pod?.rejected429).toBe(0)
      expect(outcome.pod?.duplicateReferenceIds).toEqual([])
      expect(outcome.pod?.drafts).toBe(counts.cancel_pending === 1 ? 6 : 5)

      expect(text).toContain("wiped at start")
      expect(text).toMatch(/^\[\s*[\d.]+ s\] \d+ of 8 orders placed · .*POD API \d+ of \d+ requests per \d+ s used$/m)
      expect(text).not.toMatch(/urgent|background|where expected/)
      expect(text).not.toContain("\x1b[")
      expect(countOf(text, "fulfilled")).toBe(5)
      expect(text).toMatch(/#\d+\s+unmatched: no mapping row for .*SKU/)
      expect(text).toContain("Next: point podsync at your own store and POD account")
      // The demo's own receiver got one signed alert per order that needs a person, and the summary says which.
      expect(outcome.alerts).toBe(
        counts.cancel_pending === 1 ? "3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft" : "2 alerts sent: 2 unmatched SKUs"
      )
      expect(text).toMatch(
        /^Alerts: \d alerts sent: 2 unmatched SKUs.*, to the demo's signed-webhook receiver http:\/\/127\.0\.0\.1:\d+\/alerts \(every signature checked out\)\.$/m
      )
      // The reconciliation report of the demo's period, by podsync's report service.
      expect("files" in outcome.report ? outcome.report.files.map((f) => path.extname(f)).sort() : outcome.report).toEqual([
        ".csv",
        ".html",
        ".json"
      ])
      if ("files" in outcome.report) {
        for (const file of outcome.report.files) expect(path.dirname(file)).toBe(path.join(dir, "reports"))
        // One currency per shop: the margins count every order drafted, none left out for its currency.
        const json = JSON.parse(fs.readFileSync(outcome.report.files.find((f) => f.endsWith(".json"))!, "utf8"))
        expect(json.money.excluded).toEqual([])
        expect(json.money.coverage.orders).toBe(json.money.coverage.ofOrders)
        expect(json.money.coverage.ofOrders).toBeGreaterThanOrEqual(5)
        expect(json.money.stores.map((m: { currency: string }) => m.currency)).toEqual(["USD"])
        expect(text).toContain(outcome.report.files[0])
        expect(text).toMatch(/Reconciliation report \S+ \(all stores, UTC\): 8 orders pulled/)
      }
      // Stopped cleanly: the database was closed and its folder released.
      expect(fs.existsSync(path.join(dataDir, "stale-file"))).toBe(false)
      expect(fs.existsSync(path.join(dataDir, "podsync.lock"))).toBe(false)

      // --keep-data keeps the folder (the demo's 8 orders and the one put in by hand), and refuses to mix a fresh store's order ids into the kept orders.
      const again = yield* Effect.exit(
        runDemo({ orders: 8, speed: "fast", keepData: true, dataDir, reportsDir: path.join(dir, "reports"), output: captured().output })
      )
      expect(Exit.isFailure(again) ? Cause.pretty(again.cause) : "no failure").toContain(`${dataDir} holds 9 orders of an earlier demo`)
      expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true)
      fs.rmSync(dir, { recursive: true, force: true })
    }), 330_000)

  it.live("refuses to wipe a data folder that holds something other than a podsync database", () =>
    Effect.gen(function*() {
      const dir = tempDir("demo-foreign")
      fs.writeFileSync(path.join(dir, "thesis.docx"), "precious")
      const exit = yield* Effect.exit(runDemo({ orders: 4, speed: "fast", keepData: false, dataDir: dir, output: captured().output }))
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "no failure").toContain("holds files that are not a podsync database")
      expect(fs.readFileSync(path.join(dir, "thesis.docx"), "utf8")).toBe("precious")
      fs.rmSync(dir, { recursive: true, force: true })
    }), 60_000)

  it(
    "`podsync demo --orders 8 --speed fast` (the compiled CLI, as in CI) ends by itself with the final counts and the next steps",
    async () => {
      const cwd = tempDir("demo-cli")
      const { code, stdout, stderr } = await runPodsyncIn(cwd, ["demo", "--orders", "8", "--speed", "fast"], 170_000, {
        PODSYNC_DEMO_PORT: ""
      })
      try {
        expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0)
        expect(stdout).toContain("podsync demo finished in")
        expect(countOf(stdout, "fulfilled")).toBe(5)
        expect(countOf(stdout, "held")).toBe(2)
        expect(countOf(stdout, "cancelled") + countOf(stdout, "cancel_pending")).toBe(1)
        expect(stdout.match(/unmatched: no mapping row/g)).toHaveLength(2)
        expect(stdout).toContain("npx podsync start")
        expect(stdout).toMatch(/Reconciliation report \S+ \(all stores, UTC\): 8 orders pulled/)
        expect(fs.readdirSync(path.join(cwd, "reports", "demo")).filter((f) => /^report-.*\.(html|csv|json)$/.test(f))).toHaveLength(3)
        // Its own data folder, under the directory it was started from.
        expect(stdout).toContain(path.join(cwd, "data", "demo"))
        expect(fs.existsSync(path.join(cwd, "data", "demo", "PG_VERSION"))).toBe(true)
      } finally {
        fs.rmSync(cwd, { recursive: true, force: true })
      }
    },
    180_000
  )
})
