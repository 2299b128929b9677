import type * as HttpClient from "@effect/platform/HttpClient"
import { Duration, Effect } from "effect"
import type { AppConfig } from "../../config/AppConfig.js"
import type { StoreConfig } from "../../config/StoreConfig.js"
import { startEtsySimulator } from "../../simulator/etsy/index.js"
import { startJsonFeedSimulator } from "../../simulator/jsonfeed/index.js"
import { startShopifySimulator } from "../../simulator/shopify/index.js"
import { startWooCommerceSimulator } from "../../simulator/woocommerce/index.js"
import { CliFailure } from "../AppRuntime.js"
import type { DemoSetup, StoreSimulatorUrls } from "./DemoConfig.js"
import type { GeneratedOrder } from "./DemoProgress.js"
import type { PlannedOrder } from "./OrderPlan.js"
import { etsyReceipt, jsonFeedOrder, wooCommerceOrder } from "./PlatformOrders.js"
import { etsyAdmin, jsonFeedAdmin, shopifyAdmin, type SimulatorAdminError, wooCommerceAdmin } from "./SimulatorAdmin.js"

/**
 * The demo's stores: a simulator per platform the setup runs (for the life of
 * the demo's scope), and for each configured store the buyer's and the
 * merchant's hands on it: placing the planned orders, cancelling one, and
 * pointing the store's order webhooks at the daemon.
 */

type Platform = StoreConfig["platform"]

/** A simulator for the life of the demo's scope. */
export const simulator = <A extends { readonly close: () => Promise<void> }>(start: () => Promise<A>) =>
  Effect.acquireRelease(Effect.promise(start), (running) => Effect.promise(() => running.close()))

const platformNames: Readonly<Record<Platform, string>> = {
  shopify: "Shopify",
  woocommerce: "WooCommerce",
  etsy: "Etsy",
  jsonfeed: "JSON feed"
}

export interface StoreSimulators {
  /** What the demo configuration is given: each simulator's API address. */
  readonly urls: StoreSimulatorUrls
  /** Each simulator's server root, where its `/__sim/` admin is. */
  readonly adminUrls: Readonly<Partial<Record<Platform, string>>>
  /** For the demo's first lines: "Shopify simulator http://…", one per simulator. */
  readonly described: ReadonlyArray<string>
}

/** The store simulators the setup needs, started on free ports; they stop with the demo's scope. */
export const startStoreSimulators = (setup: DemoSetup) =>
  Effect.gen(function*() {
    const shopify = yield* simulator(() => startShopifySimulator())
    if (setup === "shopify") {
      return {
        urls: { shopify: shopify.url },
        adminUrls: { shopify: shopify.url },
        described: [`Shopify simulator ${shopify.url}`]
      } satisfies StoreSimulators
    }
    const woo = yield* simulator(() => startWooCommerceSimulator())
    const etsy = yield* simulator(() => startEtsySimulator())
    const feed = yield* simulator(() => startJsonFeedSimulator())
    const adminUrls = { shopify: shopify.url, woocommerce: woo.url, etsy: etsy.url, jsonfeed: feed.url }
    return {
      urls: { shopify: shopify.url, woocommerce: woo.url, etsy: etsy.url, jsonfeed: feed.baseUrl },
      adminUrls,
      described: (Object.entries(adminUrls) as Array<[Platform, string]>).map(([platform, url]) =>
        `${platformNames[platform]} simulator ${url}`
      )
    } satisfies StoreSimulators
  })

type AdminCall<A> = Effect.Effect<A, SimulatorAdminError, HttpClient.HttpClient>

/** One of the demo's stores, as its buyers and its merchant act on it. */
export interface DemoStore {
  readonly key: string
  readonly platform: Platform
  /** The simulator's root (its `/__sim/` admin). */
  readonly adminUrl: string
  /** Places a planned order as its buyer would; the one planned as cancelled is cancelled right away. */
  readonly place: (planned: PlannedOrder) => AdminCall<GeneratedOrder>
  /** Points the store's order webhooks at the daemon's `/webhooks/<store key>`, as the seller would. */
  readonly subscribeWebhooks: (daemonUrl: string) => AdminCall<void>
}

/** The store's buyer places the order; the cancelled kind is cancelled straight after. */
const placing = (
  key: string,
  create: (planned: PlannedOrder) => AdminCall<{ readonly id: string; readonly name: string }>,
  cancel: (id: string) => AdminCall<unknown>
) =>
(planned: PlannedOrder): AdminCall<GeneratedOrder> =>
  Effect.gen(function*() {
    const created = yield* create(planned)
    if (planned.kind === "cancelled") yield* cancel(created.id)
    return { storeKey: key, storeOrderId: created.id, name: created.name, kind: planned.kind }
  })

const demoStore = (store: StoreConfig, adminUrl: string, daemonPath: string): DemoStore => {
  const address = (daemonUrl: string) => `${daemonUrl}${daemonPath}`
  /** The store from how its platform's simulator creates and cancels an order and subscribes webhooks. */
  const made = (
    create: (planned: PlannedOrder) => AdminCall<{ readonly id: string; readonly name: string }>,
    cancel: (id: string) => AdminCall<unknown>,
    subscribe: (address: string) => AdminCall<unknown>
  ): DemoStore => ({
    key: store.key,
    platform: store.platform,
    adminUrl,
    place: placing(store.key, create, cancel),
    subscribeWebhooks: (daemonUrl) => Effect.asVoid(subscribe(address(daemonUrl)))
  })
  const topics = (subscribe: (topic: string, address: string) => AdminCall<unknown>, names: ReadonlyArray<string>) => (address: string) =>
    Effect.forEach(names, (topic) => subscribe(topic, address), { discard: true })
  switch (store.platform) {
    case "shopify": {
      const admin = shopifyAdmin(adminUrl)
      return made(
        (planned) => Effect.map(admin.createOrder(planned.spec), (o) => ({ id: o.legacyResourceId, name: o.name })),
        (id) => admin.cancelOrder(id, "CUSTOMER"),
        topics(admin.subscribeWebhook, ["orders/create", "orders/updated", "orders/cancelled"])
      )
    }
    case "woocommerce": {
      const admin = wooCommerceAdmin(adminUrl)
      return made(
        (planned) => Effect.map(admin.createOrder(wooCommerceOrder(planned)), (o) => ({ id: String(o.id), name: `#${o.number}` })),
        (id) => admin.cancelOrder(id),
        topics(admin.subscribeWebhook, ["order.created", "order.updated"])
      )
    }
    case "etsy": {
      const admin = etsyAdmin(adminUrl)
      return made(
        (planned) => Effect.map(admin.createReceipt(etsyReceipt(planned)), (r) => ({ id: String(r.receipt_id), name: `#${r.receipt_id}` })),
        (id) => admin.cancelReceipt(id, "buyer_requested"),
        admin.subscribeWebhooks
      )
    }
    case "jsonfeed": {
      const admin = jsonFeedAdmin(adminUrl)
      return made(
        (planned) => Effect.map(admin.createOrder(jsonFeedOrder(planned)), (o) => ({ id: o.id, name: o.name })),
        (id) => admin.cancelOrder(id, "customer"),
        admin.subscribeWebhooks
      )
    }
  }
}

/** A `DemoStore` for each configured store, on the simulator of its platform. */
export const demoStores = (config: AppConfig, simulators: StoreSimulators): Effect.Effect<ReadonlyArray<DemoStore>, CliFailure> =>
  Effect.forEach(config.stores, (store) => {
    const adminUrl = simulators.adminUrls[store.platform]
    return adminUrl === undefined
      ? Effect.fail(new CliFailure({ message: `the demo runs no ${platformNames[store.platform]} simulator for store ${store.key}` }))
      : Effect.succeed(demoStore(store, adminUrl, `/webhooks/${store.key}`))
  })

/**
 * Places the planned orders at the chosen pace, taking the stores in turn;
 * the cancelled one is cancelled by its buyer right away.
 */
export const generateOrders = (
  plan: ReadonlyArray<PlannedOrder>,
  stores: ReadonlyArray<DemoStore>,
  arrivalMs: number,
  placed: (order: GeneratedOrder) => Effect.Effect<void>
) =>
  Effect.forEach(plan, (planned, i) =>
    Effect.gen(function*() {
      if (i > 0) yield* Effect.sleep(Duration.millis(arrivalMs))
      const store = stores[i % stores.length]
      if (store !== undefined) yield* Effect.flatMap(store.place(planned), placed)
    }), { discard: true })
