import * as net from "node:net"
import * as path from "node:path"
import { NodeHttpClient } from "@effect/platform-node"
import { Cause, Clock, Duration, Effect, Fiber, Layer, Ref } from "effect"
import type { AppConfig } from "../../config/AppConfig.js"
import { ORDER_STATES } from "../../domain/OrderState.js"
import { ReportService, reportServiceConfigOf } from "../../reports/ReportService.js"
import { summaryLine } from "../../reports/ReportSummary.js"
import { OrdersRepo, type StoredOrder } from "../../repos/OrdersRepo.js"
import { startPodSimulator } from "../../simulator/pod/index.js"
import { startShopifySimulator } from "../../simulator/shopify/index.js"
import { CliFailure } from "../AppRuntime.js"
import { daemonLayer } from "../start.js"
import { readBudgetUse } from "./BudgetUse.js"
import { DEMO_POD_WEBHOOK, demoConfig, demoConfigFile, wipeDataDir } from "./DemoConfig.js"
import { type DaemonOrder, type GeneratedOrder, type Progress, progressOf } from "./DemoProgress.js"
import { type Ending, renderSummary, type ReportWritten } from "./DemoSummary.js"
import { type DemoOutput, type DemoTerminal, makeDemoTerminal, stdoutOutput } from "./DemoTerminal.js"
import { MIN_ORDERS, planOrders, type PlannedOrder } from "./OrderPlan.js"
import { makePodFactory, type PodFactory } from "./PodFactory.js"
import { podAdmin, type PodServiceStats, shopifyAdmin } from "./SimulatorAdmin.js"

export type DemoSpeed = "fast" | "normal"

export interface DemoOptions {
  readonly orders: number
  readonly speed: DemoSpeed
  /** Keep the data folder of the previous demo instead of starting fresh. */
  readonly keepData: boolean
  /** Default: demo.yaml's dataDir (./data/demo), relative to the working directory. */
  readonly dataDir?: string
  /** Default: demo.yaml's reports.dir (./reports/demo), relative to the working directory. */
  readonly reportsDir?: string
  readonly output?: DemoOutput
  /** How long after the last order arrives the demo waits for every order to settle. Default 2 minutes. */
  readonly settleTimeout?: Duration.DurationInput
}

export interface DemoOutcome {
  readonly ending: Ending
  readonly progress: Progress
  readonly pod: PodServiceStats | undefined
  readonly elapsedMs: number
  readonly dataDir: string
  readonly reportsDir: string
  readonly report: ReportWritten
}

/** Order arrival pace, the POD shop's pace, and how often the view changes. */
const paces = {
  fast: { arrivalMs: 100, tickMs: 250, plainEveryMs: 2000, factory: { productionAfterMs: 300, shipAfterMs: 800 } },
  normal: { arrivalMs: 1200, tickMs: 500, plainEveryMs: 3000, factory: { productionAfterMs: 2000, shipAfterMs: 4500 } }
} as const

const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A simulator for the life of the demo's scope. */
const simulator = <A extends { readonly close: () => Promise<void> }>(start: () => Promise<A>) =>
  Effect.acquireRelease(Effect.promise(start), (running) => Effect.promise(() => running.close()))

/** Every store order the daemon holds, a page at a time. */
const daemonOrders = Effect.gen(function*() {
  const repo = yield* OrdersRepo
  const all: Array<StoredOrder> = []
  for (;;) {
    const page = yield* repo.pageInStates(ORDER_STATES, all[all.length - 1]?.id ?? 0, 500)
    all.push(...page)
    if (page.length < 500) return all
  }
})

const heldMessage = (details: unknown): string | null =>
  typeof details === "object" && details !== null && "message" in details && typeof details.message === "string" ? details.message : null

const asDaemonOrder = (order: StoredOrder): DaemonOrder => ({
  storeOrderId: order.storeOrderId,
  state: order.state,
  heldReason: order.heldReason,
  heldMessage: heldMessage(order.heldDetails)
})

/**
 * The simulators start afresh with the same order ids every time, so orders
 * kept from an earlier demo would be mistaken for this one's: a kept database
 * must not hold any.
 */
const refuseEarlierOrders = (dataDir: string) =>
  Effect.gen(function*() {
    const counts = yield* (yield* OrdersRepo).countByState
    const earlier = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0)
    if (earlier > 0) {
      return yield* Effect.fail(new CliFailure({
        message: `--keep-data: ${dataDir} holds ${earlier} orders of an earlier demo, and the simulators start afresh with the same order ids; ` +
          "run the demo without --keep-data (it wipes the folder) or give it another folder with --data-dir"
      }))
    }
  })

/** Places the planned orders in the store at the chosen pace; the cancelled one is cancelled by its buyer right away. */
const generateOrders = (
  plan: ReadonlyArray<PlannedOrder>,
  shop: ReturnType<typeof shopifyAdmin>,
  arrivalMs: number,
  placed: (order: GeneratedOrder) => Effect.Effect<void>
) =>
  Effect.forEach(plan, (planned, i) =>
    Effect.gen(function*() {
      if (i > 0) yield* Effect.sleep(Duration.millis(arrivalMs))
      const created = yield* shop.createOrder(planned.spec)
      if (planned.kind === "cancelled") yield* shop.cancelOrder(created.legacyResourceId, "CUSTOMER")
      yield* placed({ storeOrderId: created.legacyResourceId, name: created.name, kind: planned.kind })
    }), { discard: true })

interface Running {
  readonly config: AppConfig
  readonly options: DemoOptions
  readonly terminal: DemoTerminal
  readonly factory: PodFactory
  readonly pod: ReturnType<typeof podAdmin>
  readonly generated: Ref.Ref<ReadonlyArray<GeneratedOrder>>
  readonly planned: number
  readonly startedAt: number
  readonly daemonUrl: string
}

/** One look at the daemon's records: the shop works on them, the view shows them. */
const turn = (run: Running, force = false) =>
  Effect.gen(function*() {
    const stored = yield* daemonOrders
    yield* run.factory.work(stored)
    const progress = progressOf(run.planned, yield* Ref.get(run.generated), stored.map(asDaemonOrder))
    const budget = yield* readBudgetUse(run.config)
    const pod = yield* run.pod.stats.pipe(Effect.option)
    const elapsedMs = (yield* Clock.currentTimeMillis) - run.startedAt
    yield* run.terminal.show({
      elapsedMs,
      speed: `${run.planned} orders, ${run.options.speed}`,
      daemonUrl: run.daemonUrl,
      progress,
      budget,
      pod: pod._tag === "Some" ? pod.value : undefined,
      factory: run.factory.counts()
    }, force)
    return progress
  })

/**
 * The reconciliation report of the demo's own period (from its start until
 * now), written by podsync's report service like the daily one.
 */
const writeReport = (config: AppConfig, startedAt: number) =>
  Effect.flatMap(ReportService, (reports) => reports.run({ from: new Date(startedAt).toISOString() })).pipe(
    Effect.map(({ summary }): ReportWritten => ({ files: summary.files.map((f) => f.path), line: summaryLine(summary) })),
    Effect.provide(ReportService.Default(reportServiceConfigOf(config))),
    Effect.catchAllCause((cause) => {
      const error = Cause.squash(cause)
      return Effect.succeed<ReportWritten>({ notWritten: error instanceof Error ? error.message : String(error) })
    })
  )

/** Ends the demo: the final view, the report, the summary, where things are and what to do next. */
const finish = (run: Running, ending: Ending, dataDir: string, reportsDir: string) =>
  Effect.gen(function*() {
    const progress = yield* turn(run, true).pipe(
      Effect.orElse(() => Effect.map(Ref.get(run.generated), (generated) => progressOf(run.planned, generated, [])))
    )
    yield* run.terminal.release
    yield* run.terminal.write("\nwriting the reconciliation report…\n")
    const report = yield* writeReport(run.config, run.startedAt)
    const pod = yield* run.pod.stats.pipe(Effect.option)
    const elapsedMs = (yield* Clock.currentTimeMillis) - run.startedAt
    const outcome: DemoOutcome = { ending, progress, pod: pod._tag === "Some" ? pod.value : undefined, elapsedMs, dataDir, reportsDir, report }
    yield* run.terminal.write(`\n${renderSummary({
      ending,
      elapsedMs,
      progress,
      pod: outcome.pod,
      podLimit: { requests: run.config.pod.rateLimit.requests, windowSeconds: run.config.pod.rateLimit.windowSeconds },
      dataDir,
      report,
      configFile: demoConfigFile()
    })}\n`)
    return outcome
  })

/**
 * `podsync demo` in one process: the POD and Shopify simulators on free
 * ports, the daemon (`daemonLayer`) on the embedded database in its own data
 * folder, a stream of shop orders, and the POD shop that checks out and ships
 * every draft. Ends when every order is where the demo expects it (or on
 * Ctrl-C, or after `settleTimeout`), with a summary; everything it started
 * stops with it.
 */
export const runDemo = (options: DemoOptions) =>
  Effect.scoped(Effect.gen(function*() {
    if (!Number.isInteger(options.orders) || options.orders < MIN_ORDERS) {
      return yield* Effect.fail(new CliFailure({ message: `--orders must be a whole number of at least ${MIN_ORDERS}, got ${options.orders}` }))
    }
    const pace = paces[options.speed]
    const output = options.output ?? stdoutOutput()
    const terminal = makeDemoTerminal(output, pace.plainEveryMs)
    const startedAt = yield* Clock.currentTimeMillis

    const podSim = yield* simulator(() =>
      startPodSimulator({ webhookSigningKey: DEMO_POD_WEBHOOK.signingKey, webhookClientKey: DEMO_POD_WEBHOOK.clientKey, allowHttpDelivery: true })
    )
    const shopSim = yield* simulator(() => startShopifySimulator())
    const fromEnv = Number(process.env.PODSYNC_DEMO_PORT)
    const port = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : yield* freePort
    const config = yield* demoConfig({
      podUrl: podSim.url,
      shopifyUrl: shopSim.url,
      port,
      ...(options.dataDir === undefined ? {} : { dataDir: path.resolve(options.dataDir) }),
      ...(options.reportsDir === undefined ? {} : { reportsDir: path.resolve(options.reportsDir) })
    })
    const dataDir = path.resolve(config.dataDir)
    const reportsDir = path.resolve(config.reports.dir)
    if (!options.keepData) yield* wipeDataDir(dataDir)
    const daemonUrl = `http://${config.server.host}:${config.server.port}`
    yield* terminal.write([
      `podsync demo: ${options.orders} shop orders (${options.speed}) through the daemon, against local simulators; no credentials needed.`,
      `  POD service simulator ${podSim.url} · Shopify simulator ${shopSim.url} · daemon ${daemonUrl}`,
      options.keepData
        ? `  database ${dataDir} (kept from the previous demo: --keep-data)`
        : `  database ${dataDir} (wiped at start, so each demo starts fresh; --keep-data keeps it)`,
      "  starting the daemon…",
      ""
    ].join("\n") + "\n")

    return yield* Effect.gen(function*() {
      const daemon = yield* Layer.build(daemonLayer(config))
      if (options.keepData) yield* refuseEarlierOrders(dataDir).pipe(Effect.provide(daemon))
      const shop = shopifyAdmin(shopSim.url)
      const storeKey = config.stores[0]?.key ?? "demo-shopify"
      for (const topic of ["orders/create", "orders/updated", "orders/cancelled"]) {
        yield* shop.subscribeWebhook(topic, `${daemonUrl}/webhooks/${storeKey}`)
      }
      const plan = planOrders(options.orders)
      const generated = yield* Ref.make<ReadonlyArray<GeneratedOrder>>([])
      const cancelledInStore = new Set<string>()
      const placed = (order: GeneratedOrder) =>
        Effect.zipRight(
          Effect.sync(() => order.kind === "cancelled" && cancelledInStore.add(order.storeOrderId)),
          Ref.update(generated, (list) => [...list, order])
        )
      const pod = podAdmin(podSim.url)
      const run: Running = {
        config, options, terminal, pod, generated, startedAt, daemonUrl,
        planned: plan.length,
        factory: makePodFactory(pod, pace.factory, (id) => cancelledInStore.has(id))
      }
      const settleBy = startedAt + plan.length * pace.arrivalMs + Duration.toMillis(options.settleTimeout ?? "2 minutes")
      const watch = Effect.gen(function*() {
        for (;;) {
          // A failed look (the database busy, a simulator slow) is only a skipped frame.
          const progress = yield* turn(run).pipe(Effect.option)
          if (progress._tag === "Some" && progress.value.done) return "finished" as const
          if ((yield* Clock.currentTimeMillis) > settleBy) return "timed_out" as const
          yield* Effect.sleep(Duration.millis(pace.tickMs))
        }
      })
      return yield* Effect.gen(function*() {
        const generator = yield* Effect.fork(generateOrders(plan, shop, pace.arrivalMs, placed))
        const ending = yield* Effect.raceFirst(
          watch,
          // The generator failing (the store simulator refusing an order) ends the demo with its error.
          Fiber.join(generator).pipe(Effect.zipRight(Effect.never))
        ).pipe(Effect.onInterrupt(() => finish(run, "interrupted", dataDir, reportsDir).pipe(Effect.ignore)))
        yield* Fiber.interrupt(generator)
        return yield* finish(run, ending, dataDir, reportsDir)
      }).pipe(Effect.provide(daemon))
    }).pipe(
      Effect.provide(Layer.merge(terminal.logger(config), NodeHttpClient.layerUndici)),
      Effect.catchTag("SimulatorAdminError", (error) => Effect.fail(new CliFailure({ message: error.message }))),
      Effect.catchTag("ServeError", (error) =>
        Effect.fail(new CliFailure({ message: `the demo's daemon cannot listen on port ${port}: ${String(error.cause)} (set PODSYNC_DEMO_PORT to a free port)` })))
    )
  }))
