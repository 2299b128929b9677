// Each store platform's simulator as the end-to-end tests run it: how it starts, the daemon's store
// section for it, and how a buyer's order with one line (`demoLine`) is put in.
import { type RunningEtsySimulator, startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { type RunningJsonFeedSimulator, startJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { type RunningWooCommerceSimulator, startWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { post } from "./pipeline.js"
import type { demoLine } from "./stores.js"

export interface PlatformSetup<Sim> {
  readonly start: () => Promise<Sim>
  readonly section: (sim: Sim) => Record<string, string | number>
  /** Puts in an order whose one line is `line` (`extra`: more of the simulator's order fields, e.g. `placedAt`); answers its store order id. */
  readonly createOrder: (sim: Sim, line: ReturnType<typeof demoLine>, extra?: Record<string, unknown>) => Promise<string>
}

export const shopifySetup: PlatformSetup<RunningShopifySimulator> = {
  // A Plus-sized cost bucket: these runs are about exactly-once, not Shopify's pacing.
  start: () => startShopifySimulator({ bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } }),
  section: (sim) => ({
    shop: "acme.myshopify.com",
    accessToken: "shpat_sim_token",
    webhookSecret: "shopify-sim-webhook-secret",
    baseUrl: sim.url
  }),
  createOrder: async (sim, line, extra = {}) =>
    String(
      (await post(`${sim.url}/__sim/orders`, {
        ...extra,
        financialStatus: "PAID",
        lineItems: [{
          sku: line.sku,
          title: "Podsync Tee",
          quantity: line.quantity,
          price: "24.00",
          customAttributes: [{ key: "design_front", value: line.design }]
        }]
      })).legacyResourceId
    )
}

export const wooCommerceSetup: PlatformSetup<RunningWooCommerceSimulator> = {
  start: () => startWooCommerceSimulator(),
  section: (woo) => ({
    url: woo.url,
    consumerKey: woo.consumerKey,
    consumerSecret: woo.consumerSecret,
    webhookSecret: woo.webhookSecret,
    // Politeness tuned for a local site; the default (1 s between requests) would stretch the run to minutes.
    minRequestIntervalMs: 50
  }),
  createOrder: async (woo, line, extra = {}) => {
    // A product add-ons plugin keeps the buyer's design in the line item meta, next to the variation attributes.
    const order = await post(`${woo.url}/__sim/orders`, {
      ...extra,
      status: "processing",
      lineItems: [{
        sku: line.sku,
        name: "Podsync Tee",
        quantity: line.quantity,
        price: "24.00",
        meta: [{ key: "pa_size", value: "s" }, { key: "design_front", value: line.design }]
      }]
    })
    return String(order.id)
  }
}

/** Etsy buyers answer the listing's Personalization question with their design (the mapping reads that attribute). */
export const etsyMapping = (csv: string) => csv.replaceAll("{{attr design_front}}", "{{attr Personalization}}")

export const etsySetup: PlatformSetup<RunningEtsySimulator> = {
  start: () => startEtsySimulator(),
  section: (etsy) => ({
    shopId: String(etsy.shopId),
    keystring: etsy.keystring,
    sharedSecret: etsy.sharedSecret,
    refreshToken: etsy.refreshToken,
    baseUrl: etsy.url
  }),
  createOrder: async (etsy, line, extra = {}) => {
    const receipt = await post(`${etsy.url}/__sim/receipts`, {
      ...extra,
      status: "paid",
      transactions: [{
        title: "Podsync Tee",
        sku: line.sku,
        quantity: line.quantity,
        price_cents: 2400,
        variations: [{ formatted_name: "Size", formatted_value: "S", property_id: 100 }],
        personalization: line.design
      }]
    })
    return String(receipt.receipt_id)
  }
}

export const jsonFeedSetup: PlatformSetup<RunningJsonFeedSimulator> = {
  start: () => startJsonFeedSimulator(),
  // Paced at half the storefront's 20 requests a second (the default, 5, is for a shared production host).
  section: (feed) => ({ baseUrl: feed.baseUrl, token: feed.token, webhookSecret: feed.webhookSecret, requestsPerSecond: 10 }),
  createOrder: async (feed, line, extra = {}) => {
    const order = await post(`${feed.url}/__sim/orders`, {
      ...extra,
      financialStatus: "paid",
      lines: [{
        sku: line.sku,
        title: "Podsync Tee",
        quantity: line.quantity,
        unitPrice: "24.00",
        attributes: [{ key: "design_front", value: line.design }]
      }]
    })
    return String(order.id)
  }
}
