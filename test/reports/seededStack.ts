/**
 * The report's integration scene: the POD and Shopify simulators over real
 * HTTP, an in-memory PGlite, the report service wired as the daemon wires it
 * (PodClient behind a gate that records every request's lane), and a seeded
 * day: orders planted in known states at the simulators and in the database.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Either, Layer, Option, Redacted, Schema, TestClock } from "effect"
import { StoreConfig } from "../../src/config/StoreConfig.js"
import * as Money from "../../src/domain/Money.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import { StoresLive } from "../../src/app/StoresLive.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate, type PodRequestInfo } from "../../src/pod/PodRequestGate.js"
import { DEFAULT_REPORT_SETTINGS } from "../../src/reports/ReportInput.js"
import { ReportService, type ReportServiceConfig } from "../../src/reporting/ReportService.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ReportsRepo } from "../../src/reporting/ReportsRepo.js"
import { type RunningPodSimulator, sampleDraftData, startPodSimulator } from "../../src/simulator/pod/index.js"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { pgliteDatabase } from "../support/database.js"
import type { Db } from "../../src/db/Db.js"

export const FOREST = { sku: "UTS01-FOREST-S", variantId: "GM0002010011" }
export const DARKHE = { sku: "UTS01-DARKHE-M", variantId: "GM0002010020" }
const POD_HEADERS = {
  "content-type": "application/json",
  [DEFAULT_AUTH_HEADERS.key]: "sim-client-key",
  [DEFAULT_AUTH_HEADERS.secret]: "sim-client-secret"
}

export interface Scene {
  readonly pod: RunningPodSimulator
  readonly shopify: RunningShopifySimulator
  readonly dir: string
  /** Every POD request the report service made, in order. */
  readonly podRequests: Array<PodRequestInfo>
}
export class SceneTag extends Context.Tag("test/ReportScene")<SceneTag, Scene>() {}

const SceneLive = Layer.scoped(
  SceneTag,
  Effect.acquireRelease(
    Effect.promise(async () => ({
      pod: await startPodSimulator(),
      shopify: await startShopifySimulator(),
      dir: fs.mkdtempSync(path.join(os.tmpdir(), "podsync-reports-")),
      podRequests: [] as Array<PodRequestInfo>
    })),
    (scene) =>
      Effect.promise(async () => {
        await Promise.all([scene.pod.close(), scene.shopify.close()])
        fs.rmSync(scene.dir, { recursive: true, force: true })
      })
  )
)

export const serviceConfig = (dir: string): ReportServiceConfig => ({
  dir,
  formats: ["html", "csv", "json"],
  timezone: "UTC",
  stores: [{ key: "shop", podStoreId: "store-demo", eligibleFinancialStatuses: ["PAID"] }],
  settings: DEFAULT_REPORT_SETTINGS
})

/** The report service over new simulators and the database `database`, as `podsync start` wires it. */
export const reportStackOn = (database: Layer.Layer<Db>) =>
  Layer.unwrapEffect(Effect.map(SceneTag, (scene) => {
    const store = Schema.decodeUnknownSync(StoreConfig)({
      key: "shop",
      platform: "shopify",
      podStoreId: "store-demo",
      mappings: path.join(scene.dir, "unused.csv"),
      shopify: {
        shop: "acme.myshopify.com",
        accessToken: "shpat_sim_token",
        webhookSecret: "shopify-sim-webhook-secret",
        baseUrl: scene.shopify.url
      }
    })
    const recordingGate = Layer.succeed(PodRequestGate, {
      around: (info, send) => Effect.zipRight(Effect.sync(() => scene.podRequests.push(info)), send),
      report: () => Effect.void
    })
    const pod = PodClient.Default({
      baseUrl: scene.pod.url,
      clientKey: Redacted.make("sim-client-key"),
      clientSecret: Redacted.make("sim-client-secret"),
      authHeaders: DEFAULT_AUTH_HEADERS,
      timeoutMs: 10_000
    }).pipe(Layer.provide(recordingGate))
    return Layer.mergeAll(ReportService.Default(serviceConfig(scene.dir)), OrdersRepo.Default, ReportsRepo.Default).pipe(
      Layer.provideMerge(Layer.mergeAll(pod, StoresLive([store]))),
      Layer.provideMerge(NodeHttpClient.layerUndici),
      Layer.provideMerge(database)
    )
  })).pipe(Layer.provideMerge(SceneLive))

/** The report service over the simulators and a fresh database, as `podsync start` wires it. */
export const ReportStackLive = reportStackOn(pgliteDatabase().layer)

const call = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const body = await response.json() as any
    if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`)
    return body
  })
const post = (url: string, body: unknown = {}, headers: Record<string, string> = { "content-type": "application/json" }) =>
  call(url, { method: "POST", headers, body: JSON.stringify(body) })

/** A paid USD Shopify order with one line (24.00 a unit) and 5.00 shipping. */
const shopOrder = (scene: Scene, item: { readonly sku: string }, quantity: number) =>
  Effect.map(
    post(`${scene.shopify.url}/__sim/orders`, {
      financialStatus: "PAID",
      currencyCode: "USD",
      lineItems: [{ sku: item.sku, title: "Podsync Tee", quantity, price: "24.00", customAttributes: [] }],
      shippingLine: { title: "Standard", code: "STANDARD", price: "5.00" }
    }),
    (order) => String(order.legacyResourceId)
  )

export const podDraft = (scene: Scene, referenceId: string, item: { readonly variantId: string }, quantity = 1) =>
  Effect.map(
    post(`${scene.pod.url}/api/v3/orders/draft`, {
      data: sampleDraftData({ variantId: item.variantId, referenceId, storeId: "store-demo", quantity })
    }, POD_HEADERS),
    (body) => String(body.data.order_id)
  )

const checkoutAndShip = (scene: Scene, draftId: string, ship: boolean) =>
  Effect.gen(function*() {
    const order = yield* post(`${scene.pod.url}/__sim/drafts/${draftId}/checkout`, { paid: true })
    if (ship) yield* post(`${scene.pod.url}/__sim/orders/${order.order_id}/ship`, {})
    return String(order.order_id)
  })

/** The POD order's total as the service states it (read straight from the API, not through podsync). */
export const podOrderTotal = (scene: Scene, podOrderId: string) =>
  Effect.map(call(`${scene.pod.url}/api/v3/orders/${podOrderId}`, { headers: POD_HEADERS }), (body) => {
    const total = body.data.order_total
    return Either.getOrThrow(Money.make(total.currency_code, total.units, total.nanos ?? 0))
  })

export interface SeededDay {
  readonly from: number
  readonly to: number
  /** When the report is made: six hours after the day ended. */
  readonly reportAt: number
  readonly ids: Readonly<Record<"fulfilled" | "shippedUnfulfilled" | "duplicate" | "held" | "noDraft" | "cancelled", string>>
  readonly drafts: { readonly duplicateKept: string; readonly duplicateSpare: string; readonly orphan: string }
  readonly podOrders: { readonly fulfilled: string; readonly shippedUnfulfilled: string }
}

/**
 * Six store orders and the POD records behind them, planted in known states,
 * plus a POD draft whose reference id names no store order. The day starts
 * two hours before now (wall clock), so what the simulators stamp falls in it.
 */
export const seedDay = Effect.gen(function*() {
  const scene = yield* SceneTag
  const orders = yield* OrdersRepo
  const connector = (yield* StoreConnectors).get("shop")!
  const from = Math.floor((Date.now() - 2 * 3_600_000) / 60_000) * 60_000
  const minute = (m: number) => TestClock.setTime(from + m * 60_000)

  const ids = {
    fulfilled: yield* shopOrder(scene, FOREST, 2),
    shippedUnfulfilled: yield* shopOrder(scene, FOREST, 1),
    duplicate: yield* shopOrder(scene, DARKHE, 1),
    held: yield* shopOrder(scene, DARKHE, 1),
    noDraft: yield* shopOrder(scene, FOREST, 1),
    cancelled: yield* shopOrder(scene, FOREST, 1)
  }
  yield* post(`${scene.shopify.url}/__sim/orders/${ids.cancelled}/cancel`, { reason: "customer" })

  /** Pulls the order as podsync would, then walks it through `steps` ([state, minute]). */
  const plant = (storeOrderId: string, pulledAt: number, steps: ReadonlyArray<readonly [OrderState, number, Record<string, unknown>?]>) =>
    Effect.gen(function*() {
      const order = Option.getOrThrow(yield* connector.getOrder(storeOrderId))
      yield* minute(pulledAt)
      const { id } = yield* orders.upsertPulled(order, ReferenceId.keyOf("shop", storeOrderId))
      let state: OrderState = "pulled"
      for (const [to, at, change] of steps) {
        yield* minute(at)
        yield* orders.transition(id, state, to, { actor: "seed", reason: `seeded ${to}`, ...change })
        state = to
      }
      return order
    })
  const lines = (order: { readonly lines: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }> }) =>
    order.lines.map((l) => ({ lineId: l.lineId, quantity: l.quantity }))

  // Fulfilled: drafted, checked out, shipped at the POD service, and fulfilled in the store with that tracking.
  const fulfilledDraft = yield* podDraft(scene, ReferenceId.keyOf("shop", ids.fulfilled), FOREST, 2)
  const fulfilledPod = yield* checkoutAndShip(scene, fulfilledDraft, true)
  const fulfilledOrder = Option.getOrThrow(yield* connector.getOrder(ids.fulfilled))
  yield* connector.pushFulfillment({
    storeOrderId: ids.fulfilled,
    lines: [lines(fulfilledOrder)[0]!],
    tracking: { company: "USPS", number: "9400100000000000000001" }
  })
  yield* plant(ids.fulfilled, 10, [
    ["ready", 11],
    ["drafted", 20, { podDraftId: fulfilledDraft, plannedLines: lines(fulfilledOrder) }],
    ["checked_out", 60, { podOrderId: fulfilledPod }],
    ["in_production", 90],
    ["shipped", 200],
    ["fulfilled", 215]
  ])

  // Planted: shipped at the POD service, never fulfilled in the store; podsync still has it checked out.
  const shippedDraft = yield* podDraft(scene, ReferenceId.keyOf("shop", ids.shippedUnfulfilled), FOREST, 1)
  const shippedPod = yield* checkoutAndShip(scene, shippedDraft, true)
  const shippedOrder = Option.getOrThrow(yield* connector.getOrder(ids.shippedUnfulfilled))
  yield* plant(ids.shippedUnfulfilled, 30, [
    ["ready", 31],
    ["drafted", 45, { podDraftId: shippedDraft, plannedLines: lines(shippedOrder) }],
    ["checked_out", 70, { podOrderId: shippedPod }]
  ])

  // Planted: two drafts for one store order; podsync follows the first.
  const kept = yield* podDraft(scene, ReferenceId.keyOf("shop", ids.duplicate), DARKHE)
  const spare = yield* podDraft(scene, ReferenceId.keyOf("shop", ids.duplicate), DARKHE)
  const duplicateOrder = Option.getOrThrow(yield* connector.getOrder(ids.duplicate))
  yield* plant(ids.duplicate, 40, [["ready", 41], ["drafted", 50, { podDraftId: kept, plannedLines: lines(duplicateOrder) }]])

  yield* plant(ids.held, 100, [["held", 100, { held: { code: "unmatched", details: { message: "no mapping row for UTS01-DARKHE-M" } } }]])
  yield* plant(ids.noDraft, 120, [["ready", 121]])
  yield* plant(ids.cancelled, 130, [["cancelled", 140]])

  // Planted: a draft whose reference id names a store order that does not exist.
  const orphan = yield* podDraft(scene, "shop:999999999", FOREST)

  return {
    from,
    to: from + 24 * 3_600_000,
    reportAt: from + 30 * 3_600_000,
    ids,
    drafts: { duplicateKept: kept, duplicateSpare: spare, orphan },
    podOrders: { fulfilled: fulfilledPod, shippedUnfulfilled: shippedPod }
  } satisfies SeededDay
})

/** The seeded day, the clock at its report time (the next morning), and the report service. */
export const atReportTime = Effect.gen(function*() {
  const day = yield* seedDay
  yield* TestClock.setTime(day.reportAt)
  return { day, reports: yield* ReportService }
})
