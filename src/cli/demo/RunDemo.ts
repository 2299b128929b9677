import * as net from "node:net"
import * as path from "node:path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Cause, Clock, Duration, Effect, Fiber, Layer, Ref } from "effect"
import type { AppConfig } from "../../config/AppConfig.js"
import { ORDER_STATES } from "../../domain/OrderState.js"
import { ReportService, reportServiceConfigOf } from "../../reporting/ReportService.js"
import { summaryLine } from "../../reports/ReportSummary.js"
import { OrdersRepo, type StoredOrder } from "../../repos/OrdersRepo.js"
import { startPodSimulator } from "../../simulator/pod/index.js"
import { CliFailure, UsageError } from "../AppRuntime.js"
import { daemonLayer } from "../../app/DaemonLive.js"
import { readBudgetUse } from "./BudgetUse.js"
import { demoConfig, demoConfigFile, type DemoSetup, wipeDataDir } from "./DemoConfig.js"
import { type DaemonOrder, type GeneratedOrder, type Progress, progressOf } from "./DemoProgress.js"
import { putAnOrderIn } from "./PutAnOrderIn.js"
import { type DemoStore, demoStores, generateOrders, simulator, startStoreSimulators } from "./DemoStores.js"
import { type Ending, renderSummary, type ReportWritten } from "./DemoSummary.js"
import { type DemoOutput, type DemoTerminal, makeDemoTerminal, stdoutOutput } from "./DemoTerminal.js"
import { AlertsRepo } from "../../repos/AlertsRepo.js"
import { type AlertInbox, startAlertInbox } from "./AlertInbox.js"
import { MIN_ORDERS, planOrders } from "./OrderPlan.js"
import { makePodFactory, type PodFactory } from "./PodFactory.js"
import { podAdmin, type PodServiceStats } from "./SimulatorAdmin.js"

export type DemoSpeed = "fast" | "normal"

export interface DemoOptions {
  readonly orders: number
  readonly speed: DemoSpeed
  /** Default "shopify": the Shopify store alone; "all-platforms": one store of each platform, together. */
  readonly setup?: DemoSetup
  /** Keep the data folder of the previous demo instead of starting fresh. */
  readonly keepData: boolean
  /** Default: demo.yaml's dataDir (./data/demo), relative to the working directory. */
  readonly dataDir?: string
  /** Default: demo.yaml's reports.dir (./reports/demo), relative to the working directory. */
  readonly reportsDir?: string
  readonly output?: DemoOutput
  /** How long after the last order arrives the demo waits for every order to settle. Default 2 minutes. */
  readonly settleTimeout?: Duration.DurationInput
  /**
   * After the summary, keep the daemon and the simulators up, the console served, until this ends
   * (`podsync demo --console`: Ctrl-C). Absent: the demo ends with its summary.
   */
  readonly serveConsoleUntil?: Effect.Effect<void>
}

export interface DemoOutcome {
  readonly ending: Ending
  readonly progress: Progress
  readonly pod: PodServiceStats | undefined
  readonly elapsedMs: number
  readonly dataDir: string
  readonly reportsDir: string
  readonly report: ReportWritten
  /** Where the simulators listen (their `/__sim/` admin at each root), while the caller's scope keeps them (see `runDemoInScope`). */
  readonly simulators: DemoSimulators
  /** The alerts the demo's receiver got: "3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft". */
  readonly alerts: string
}

export interface DemoSimulators {
  readonly pod: string
  readonly stores: ReadonlyArray<{ readonly key: string; readonly platform: DemoStore["platform"]; readonly url: string }>
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

const storeKeys = (config: AppConfig): ReadonlyArray<string> => config.stores.map((store) => store.key)

const heldMessage = (details: unknown): string | null =>
  typeof details === "object" && details !== null && "message" in details && typeof details.message === "string" ? details.message : null

const asDaemonOrder = (order: StoredOrder): DaemonOrder => ({
  storeKey: order.storeKey,
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
      return yield* Effect.fail(
        new CliFailure({
          message:
            `--keep-data: ${dataDir} holds ${earlier} orders of an earlier demo, and the simulators start afresh with the same order ids; ` +
            "run the demo without --keep-data (it wipes the folder) or give it another folder with --data-dir"
        })
      )
    }
  })

interface Running {
  readonly config: AppConfig
  readonly options: DemoOptions
  readonly terminal: DemoTerminal
  readonly factory: PodFactory
  readonly pod: ReturnType<typeof podAdmin>
  readonly generated: Ref.Ref<ReadonlyArray<GeneratedOrder>>
  readonly planned: number
  readonly setup: DemoSetup
  readonly simulators: DemoSimulators
  readonly startedAt: number
  readonly daemonUrl: string
  readonly inbox: AlertInbox
}

/** One look at the daemon's records: the shop works on them, the view shows them. */
const turn = (run: Running, force = false) =>
  Effect.gen(function*() {
    const stored = yield* daemonOrders
    yield* run.factory.work(stored)
    const progress = progressOf(run.planned, yield* Ref.get(run.generated), stored.map(asDaemonOrder), storeKeys(run.config))
    const budget = yield* readBudgetUse(run.config)
    const pod = yield* run.pod.stats.pipe(Effect.option)
    const elapsedMs = (yield* Clock.currentTimeMillis) - run.startedAt
    yield* run.terminal.show({
      elapsedMs,
      speed: `${run.planned} orders${run.config.stores.length > 1 ? ` in ${run.config.stores.length} stores` : ""}, ${run.options.speed}`,
      daemonUrl: run.daemonUrl,
      progress,
      budget,
      pod: pod._tag === "Some" ? pod.value : undefined,
      factory: run.factory.counts()
    }, force)
    return progress
  })

/** The POD shop at work on the daemon's orders (no view drawn), until interrupted. */
const keepShopWorking = (run: Running, everyMs: number) =>
  Effect.forever(
    Effect.zipRight(
      Effect.flatMap(daemonOrders, (stored) => run.factory.work(stored)).pipe(Effect.ignore),
      Effect.sleep(Duration.millis(everyMs))
    )
  )

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

/** Waits (10 s at most) until every alert of the demo is routed and sent: the digest holds the last for a few seconds. */
const alertsSettled = Effect.gen(function*() {
  const alerts = yield* AlertsRepo
  for (let i = 0; i < 40; i++) {
    const waiting = (yield* alerts.unroutedCount) + (yield* alerts.summary).pending
    if (waiting === 0) return
    yield* Effect.sleep("250 millis")
  }
}).pipe(Effect.ignore)

/** Ends the demo: the final view, the report, the summary, where things are and what to do next. */
const finish = (run: Running, ending: Ending, dataDir: string, reportsDir: string) =>
  Effect.gen(function*() {
    const progress = yield* turn(run, true).pipe(
      Effect.orElse(() => Effect.map(Ref.get(run.generated), (generated) => progressOf(run.planned, generated, [], storeKeys(run.config))))
    )
    yield* run.terminal.release
    yield* run.terminal.write("\nwriting the reconciliation report…\n")
    const report = yield* writeReport(run.config, run.startedAt)
    yield* alertsSettled
    const pod = yield* run.pod.stats.pipe(Effect.option)
    const elapsedMs = (yield* Clock.currentTimeMillis) - run.startedAt
    const outcome: DemoOutcome = {
      ending,
      progress,
      pod: pod._tag === "Some" ? pod.value : undefined,
      elapsedMs,
      dataDir,
      reportsDir,
      report,
      simulators: run.simulators,
      alerts: run.inbox.summary()
    }
    yield* run.terminal.write(`\n${
      renderSummary({
        ending,
        elapsedMs,
        progress,
        pod: outcome.pod,
        podLimit: { requests: run.config.pod.rateLimit.requests, windowSeconds: run.config.pod.rateLimit.windowSeconds },
        dataDir,
        report,
        configFile: demoConfigFile(run.setup),
        alerts: { line: outcome.alerts, receiver: run.inbox.url, refused: run.inbox.refused() }
      })
    }\n`)
    return outcome
  })

/**
 * `podsync demo` in one process: the POD simulator and the store simulators
 * (Shopify's; with `setup: "all-platforms"` also WooCommerce's, Etsy's and
 * the JSON feed storefront) on free ports, the daemon (`daemonLayer`) on the
 * embedded database in its own data folder running every store of the demo
 * configuration, a stream of shop orders spread over the stores in turn, and
 * the POD shop that checks out and ships every draft. Ends when every order
 * is where the demo expects it (or on Ctrl-C, or after `settleTimeout`), with
 * a summary; everything it started stops with it.
 */
export const runDemo = (options: DemoOptions) => Effect.scoped(runDemoInScope(options))

/**
 * `runDemo` leaving the simulators and the daemon up until the caller's scope
 * closes, so that a test can read the stores' and the POD service's side of
 * the orders once the demo has ended.
 */
export const runDemoInScope = (options: DemoOptions) =>
  Effect.gen(function*() {
    if (!Number.isInteger(options.orders) || options.orders < MIN_ORDERS) {
      return yield* Effect.fail(
        new UsageError({ message: `--orders must be a whole number of at least ${MIN_ORDERS}, got ${options.orders}` })
      )
    }
    const pace = paces[options.speed]
    const output = options.output ?? stdoutOutput()
    const terminal = makeDemoTerminal(output, pace.plainEveryMs)
    const startedAt = yield* Clock.currentTimeMillis

    const podSim = yield* simulator(() => startPodSimulator({ allowHttpDelivery: true }))
    const setup = options.setup ?? "shopify"
    const storeSims = yield* startStoreSimulators(setup)
    const inbox = yield* startAlertInbox
    const fromEnv = Number(process.env.PODSYNC_DEMO_PORT)
    const port = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : yield* freePort
    const config = yield* demoConfig({
      setup,
      podUrl: podSim.url,
      storeUrls: storeSims.urls,
      port,
      alertsUrl: inbox.url,
      ...(options.dataDir === undefined ? {} : { dataDir: path.resolve(options.dataDir) }),
      ...(options.reportsDir === undefined ? {} : { reportsDir: path.resolve(options.reportsDir) })
    })
    const dataDir = path.resolve(config.dataDir)
    const reportsDir = path.resolve(config.reports.dir)
    if (!options.keepData) yield* wipeDataDir(dataDir)
    const daemonUrl = `http://${config.server.host}:${config.server.port}`
    yield* terminal.write(
      [
        setup === "shopify"
          ? `podsync demo: ${options.orders} shop orders (${options.speed}) through the daemon, against local simulators; no credentials needed.`
          : `podsync demo: ${options.orders} shop orders (${options.speed}) in ${config.stores.length} stores, one of each platform ` +
            `(${config.stores.map((s) => s.key).join(", ")}), through one daemon, against local simulators; no credentials needed.`,
        `  POD service simulator ${podSim.url} · ${storeSims.described.join(" · ")} · daemon ${daemonUrl}`,
        options.keepData
          ? `  database ${dataDir} (kept from the previous demo: --keep-data)`
          : `  database ${dataDir} (wiped at start, so each demo starts fresh; --keep-data keeps it)`,
        "  starting the daemon…",
        ""
      ].join("\n") + "\n"
    )

    return yield* Effect.gen(function*() {
      const daemon = yield* Layer.build(daemonLayer(config))
      if (options.keepData) yield* refuseEarlierOrders(dataDir).pipe(Effect.provide(daemon))
      const stores = yield* demoStores(config, storeSims)
      yield* Effect.forEach(stores, (store) => store.subscribeWebhooks(daemonUrl), { discard: true })
      const plan = planOrders(options.orders)
      const generated = yield* Ref.make<ReadonlyArray<GeneratedOrder>>([])
      // By store and id: two stores may give the same id to different orders.
      const cancelledInStore = new Set<string>()
      const storeOrder = (order: { readonly storeKey: string; readonly storeOrderId: string }) => `${order.storeKey}:${order.storeOrderId}`
      const placed = (order: GeneratedOrder) =>
        Effect.zipRight(
          Effect.sync(() => order.kind === "cancelled" && cancelledInStore.add(storeOrder(order))),
          Ref.update(generated, (list) => [...list, order])
        )
      const pod = podAdmin(podSim.url)
      const run: Running = {
        config,
        options,
        terminal,
        pod,
        generated,
        startedAt,
        daemonUrl,
        inbox,
        setup,
        simulators: { pod: podSim.url, stores: stores.map((store) => ({ key: store.key, platform: store.platform, url: store.adminUrl })) },
        planned: plan.length,
        factory: makePodFactory(pod, pace.factory, (order) => cancelledInStore.has(storeOrder(order)))
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
        const generator = yield* Effect.fork(generateOrders(plan, stores, pace.arrivalMs, placed))
        const ending = yield* Effect.raceFirst(
          watch,
          // The generator failing (the store simulator refusing an order) ends the demo with its error.
          Fiber.join(generator).pipe(Effect.zipRight(Effect.never))
        ).pipe(Effect.onInterrupt(() => finish(run, "interrupted", dataDir, reportsDir).pipe(Effect.ignore)))
        yield* Fiber.interrupt(generator)
        const outcome = yield* finish(run, ending, dataDir, reportsDir)
        if (options.serveConsoleUntil !== undefined) {
          const howTo = putAnOrderIn(run.simulators.stores, { url: daemonUrl, port }, demoConfigFile(setup))
          yield* terminal.write(`\n${howTo.join("\n")}\n`)
          // The POD shop keeps checking out and shipping, so an order put in now goes all the way.
          yield* Effect.raceFirst(options.serveConsoleUntil, keepShopWorking(run, pace.tickMs))
        }
        return outcome
      }).pipe(Effect.provide(daemon))
    }).pipe(
      Effect.provide(Layer.merge(terminal.logger(config), NodeHttpClient.layerUndici)),
      Effect.catchTag("SimulatorAdminError", (error) => Effect.fail(new CliFailure({ message: error.message }))),
      Effect.catchTag("ServeError", (error) =>
        Effect.fail(
          new CliFailure({
            message: `the demo's daemon cannot listen on port ${port}: ${String(error.cause)} (set PODSYNC_DEMO_PORT to a free port)`
          })
        ))
    )
  })
