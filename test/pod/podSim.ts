// Shared by the POD client tests: the simulator over real HTTP, its admin
// endpoints, and client layers wired to it.
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { LegacyV2Client } from "../../src/pod/LegacyV2Client.js"
import { DEFAULT_AUTH_HEADERS, PodClient, type PodClientConfig } from "../../src/pod/PodClient.js"
import { PodRequestGate } from "../../src/pod/PodRequestGate.js"
import type { CreateDraftInput } from "../../src/pod/schemas/DraftRequests.js"
import type { CreateWebhookInput } from "../../src/pod/schemas/Webhooks.js"
import { type PodSimulatorOptions, type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { afterAll, beforeAll } from "vitest"

export const SIM_KEY = "sim-client-key"
export const SIM_SECRET = "sim-client-secret"

export const clientConfig = (url: string, overrides: Partial<PodClientConfig> = {}): PodClientConfig => ({
  baseUrl: url,
  clientKey: Redacted.make(SIM_KEY),
  clientSecret: Redacted.make(SIM_SECRET),
  authHeaders: DEFAULT_AUTH_HEADERS,
  timeoutMs: 10_000,
  ...overrides
})

export const podClientLayer = (
  url: string,
  overrides: Partial<PodClientConfig> = {},
  gate: Layer.Layer<PodRequestGate> = PodRequestGate.passThrough
) => PodClient.Default(clientConfig(url, overrides)).pipe(Layer.provide(NodeHttpClient.layer), Layer.provide(gate))

/**
 * A client against the simulator at `url()` (read when the layer is built, so a simulator started
 * in `beforeAll` works) whose gate appends each operation it lets through to `sent`.
 */
export const recordingPodClientLayer = (url: () => string, sent: Array<string>) =>
  Layer.suspend(() =>
    podClientLayer(
      url(),
      {},
      Layer.succeed(PodRequestGate, {
        around: (info, send) => Effect.zipRight(Effect.sync(() => sent.push(info.operation)), send),
        report: () => Effect.void
      })
    )
  )

export const legacyClientLayer = (url: string, options: { readonly apiKey?: string; readonly strictDecoding?: boolean } = {}) =>
  LegacyV2Client.Default({
    baseUrl: url,
    apiKey: Redacted.make(options.apiKey ?? SIM_KEY),
    apiSignature: Redacted.make("sim-signature"),
    timeoutMs: 10_000,
    strictDecoding: options.strictDecoding ?? false
  }).pipe(Layer.provide(NodeHttpClient.layer), Layer.provide(PodRequestGate.passThrough))

/** Calls a /__sim/ admin endpoint with fetch (test code; the client under test is not involved). */
export const admin = async <A = unknown>(url: string, method: string, path: string, body?: unknown): Promise<A> => {
  const response = await fetch(`${url}/__sim${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = (await response.json()) as A
  if (!response.ok) throw new Error(`admin ${method} ${path} → ${response.status}: ${JSON.stringify(json)}`)
  return json
}

export const addFault = (url: string, fault: Record<string, unknown>) => admin<{ id: string }>(url, "POST", "/faults", fault)

export interface SimStats {
  readonly requests: Record<string, number>
  readonly total: number
  readonly draftsByReferenceId: Record<string, number>
}
export const stats = (url: string) => admin<SimStats>(url, "GET", "/stats")

export const run = <A, E>(layer: Layer.Layer<PodClient>, effect: Effect.Effect<A, E, PodClient>): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, layer))

/** A valid draft for the simulator's catalog. */
export const draftInput = (variantId: string, referenceId: string, extra: Partial<CreateDraftInput> = {}): CreateDraftInput => ({
  reference_id: referenceId,
  platform: "MARKETPLACE_PLATFORM_SHOPIFY",
  store_id: "store-1",
  address: {
    first_name: "Ada",
    last_name: "Lovelace",
    street_1: "12 Analytical Way",
    city: "Los Angeles",
    state_code: "CA",
    zip_code: "90012",
    country_code: "US",
    phone_no: "+1 (213) 555-0100"
  },
  shipping_method: "METHOD_STANDARD",
  line_items: [
    {
      variant_id: variantId,
      quantity: 2,
      printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://designs.example.com/front.png" }]
    }
  ],
  ...extra
})

/**
 * A POD simulator (without a rate limit unless `options` say) started before the enclosing file's or
 * suite's tests and closed after them. What it returns reads through to the running simulator.
 */
export const sharedPodSimulator = (options: PodSimulatorOptions = { rateLimit: false }): RunningPodSimulator => {
  let started: RunningPodSimulator | undefined
  beforeAll(async () => {
    started = await startPodSimulator(options)
  })
  afterAll(() => started?.close())
  return new Proxy({} as RunningPodSimulator, {
    get: (_, key) => {
      if (started === undefined) throw new Error("the POD simulator is used before the suite's beforeAll started it")
      return started[key as keyof RunningPodSimulator]
    }
  })
}

/** The first in-stock variant of the simulator's catalog, as the client reads it. */
export const firstInStockVariant = async (url: string) =>
  (await run(
    podClientLayer(url),
    Effect.flatMap(
      PodClient,
      (c) => c.listCatalogVariants({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] }, paging: { limit: 1 } })
    )
  )).data[0]!

/** The legacy v2 store and US ship-to every v2 draft of these tests uses. */
export const adaLovelaceV2 = {
  store_id: "store-1",
  shipping_name: "Ada Lovelace",
  shipping_address1: "12 Analytical Way",
  shipping_city: "Los Angeles",
  shipping_province_code: "CA",
  shipping_zipcode: "90012",
  shipping_country_code: "US"
}

/** The published webhook topics, in the order of their enum numbers (2 to 8). */
export const PUBLISHED_TOPICS = [
  "TOPIC_ORDER_COMPLETED",
  "TOPIC_ORDER_CANCELLED",
  "TOPIC_TRACKING_ORDER_UPDATED",
  "TOPIC_ORDER_ON_HOLD",
  "TOPIC_SHIPPING_ADDRESS_VERIFIED",
  "TOPIC_SHIPPING_ADDRESS_UNVERIFIED",
  "TOPIC_PRODUCT_OUT_OF_STOCK"
] as const

/** An active V3 subscription of store-1 to `topic`, named `name`, delivered to `deliveryUrl`. */
export const activeV3Webhook = (topic: CreateWebhookInput["topic"], name: string, deliveryUrl: string): CreateWebhookInput => ({
  status: "STATUS_ACTIVE",
  topic,
  version: "VERSION_V3",
  name,
  delivery_url: deliveryUrl,
  store_id: "store-1"
})
