import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Queue, Redacted, Schema, TestClock } from "effect"
import { Db } from "../../src/db/Db.js"
import { refreshCatalog } from "../../src/pipeline/CatalogRefresh.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate, type PodRequestInfo } from "../../src/pod/PodRequestGate.js"
import { CatalogVariant } from "../../src/pod/schemas/Catalog.js"
import { CatalogRepo } from "../../src/repos/CatalogRepo.js"
import { testDatabases } from "../support/database.js"
import { sharedPodSimulator } from "../pod/podSim.js"

const sim = sharedPodSimulator()

const STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"

/** Asks the simulator directly (test code, not the client under test). */
const simVariants = async (query: string) => {
  const response = await fetch(`${sim.url}/api/v3/catalog/variants?${query}`, {
    headers: { [DEFAULT_AUTH_HEADERS.key]: "sim-client-key", [DEFAULT_AUTH_HEADERS.secret]: "sim-client-secret" }
  })
  const body = (await response.json()) as { data: Array<unknown>; paging: { total: number | string } }
  return { variants: body.data.map((v) => Schema.decodeUnknownSync(CatalogVariant)(v)), total: Number(body.paging.total) }
}

/** The pipeline's side of the port, and the lanes the refresh spent from. */
const harness = Effect.gen(function*() {
  const replans = yield* Queue.unbounded<string>()
  const lanes: Array<PodRequestInfo["lane"]> = []
  const triggers = Layer.succeed(PipelineTriggers, {
    storeChanged: () => Effect.void,
    podOrderChanged: () => Effect.void,
    replanHeld: (storeKey) => Queue.offer(replans, storeKey ?? "*").pipe(Effect.asVoid)
  })
  const gate = Layer.succeed(PodRequestGate, {
    around: (info, send) => Effect.zipRight(Effect.sync(() => lanes.push(info.lane)), send),
    report: () => Effect.void
  })
  const pod = PodClient.Default({
    baseUrl: sim.url,
    clientKey: Redacted.make("sim-client-key"),
    clientSecret: Redacted.make("sim-client-secret"),
    authHeaders: DEFAULT_AUTH_HEADERS
  }).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(gate))
  return { replans, lanes, services: Layer.merge(triggers, pod) }
})

for (const database of testDatabases()) {
  // The standalone `layer`: `it.layer` of a second suite in one file would nest in the first one's layer.
  layer(Layer.provideMerge(CatalogRepo.Default, database.layer))(`CatalogRepo and refreshCatalog on ${database.name}`, (it) => {
    it.effect("caches the whole catalog from the POD API in the background lane; lookup finds variants by id and legacy id", () =>
      Effect.gen(function*() {
        const repo = yield* CatalogRepo
        const { lanes, replans, services } = yield* harness
        expect(yield* repo.lookup).toBeUndefined()

        yield* TestClock.setTime(Date.parse("2026-11-21T06:00:00Z"))
        const summary = yield* Effect.provide(refreshCatalog, services)
        const all = yield* Effect.promise(() => simVariants("paging.limit=1"))
        expect(summary).toEqual({ variants: all.total, added: all.total, stockChanged: 0, removed: 0 })
        expect(lanes.length).toBeGreaterThan(1)
        expect(new Set(lanes)).toEqual(new Set(["background"]))
        expect(yield* Queue.takeAll(replans)).toHaveLength(1)

        const { variants: [discontinued] } = yield* Effect.promise(() =>
          simVariants(`filter.stock_labels=${STOCK}DISCONTINUED&paging.limit=1`)
        )
        const lookup = (yield* repo.lookup)!
        expect(lookup({ variantId: discontinued!.variant_id })).toEqual({
          variantId: discontinued!.variant_id,
          legacyId: discontinued!.legacy_variant_id,
          name: `${discontinued!.product?.product_name}, ${discontinued!.name}`,
          stockLabel: `${STOCK}DISCONTINUED`
        })
        expect(lookup({ legacyId: String(discontinued!.legacy_variant_id) })?.variantId).toBe(discontinued!.variant_id)
        expect(lookup({ variantId: "no-such-variant" })).toBeUndefined()

        const entry = (yield* repo.entries).find((e) => e.variantId === discontinued!.variant_id)
        expect(entry).toMatchObject({ sku: discontinued!.variant_sku, color: discontinued!.color, size: discontinued!.size })
        expect(entry?.sku).toMatch(/^[A-Z]{3}\d{2}-/)
        // What the console's product picker shows: the colour's swatch, the price, the product's image.
        expect(entry?.hexColor).toBe(discontinued!.hex_color_code)
        expect(entry?.price).toEqual(discontinued!.price)
        expect(entry?.imageUrl).toBe(discontinued!.product?.product_avatar_url)
        expect(entry?.imageUrl).toMatch(/^https:\/\//)
        const db = yield* Db
        const stored = yield* db.use((k) =>
          k.selectFrom("catalog_variants").select(["price", "hex_color_code"]).where("variant_id", "=", discontinued!.variant_id)
            .executeTakeFirstOrThrow()
        )
        expect(stored.hex_color_code).toBe(discontinued!.hex_color_code)
        expect(stored.price).toMatchObject({ currency_code: discontinued!.price?.currency })
        expect(Object.keys(stored.price ?? {}).sort()).toEqual(["currency_code", "nanos", "units"])
      }))

    it.effect("re-plans held orders when stock comes back or a variant goes, and not after a refresh that changed nothing", () =>
      Effect.gen(function*() {
        const repo = yield* CatalogRepo
        const { replans, services } = yield* harness
        yield* TestClock.setTime(Date.parse("2026-11-21T07:00:00Z"))
        yield* Effect.provide(refreshCatalog, services)
        yield* Queue.takeAll(replans)

        // The cache believes one variant is out of stock, and holds one the service no longer lists.
        const { variants: [inStock] } = yield* Effect.promise(() => simVariants(`filter.stock_labels=${STOCK}IN_STOCK&paging.limit=1`))
        const staleAt = new Date(Date.parse("2026-11-21T07:00:00Z"))
        yield* repo.upsert([
          { ...inStock!, stock_label: `${STOCK}OUT_OF_STOCK` },
          { ...inStock!, variant_id: "retired-variant", legacy_variant_id: 999_999 }
        ], staleAt)
        yield* repo.reloadSnapshot
        expect((yield* repo.lookup)!({ variantId: inStock!.variant_id })?.stockLabel).toBe(`${STOCK}OUT_OF_STOCK`)

        yield* TestClock.adjust("6 hours")
        const summary = yield* Effect.provide(refreshCatalog, services)
        expect(summary).toMatchObject({ added: 0, stockChanged: 1, removed: 1 })
        expect(yield* Queue.takeAll(replans)).toHaveLength(1)
        const lookup = (yield* repo.lookup)!
        expect(lookup({ variantId: inStock!.variant_id })?.stockLabel).toBe(`${STOCK}IN_STOCK`)
        expect(lookup({ variantId: "retired-variant" })).toBeUndefined()

        yield* TestClock.adjust("6 hours")
        expect(yield* Effect.provide(refreshCatalog, services)).toMatchObject({ added: 0, stockChanged: 0, removed: 0 })
        expect(yield* Queue.size(replans)).toBe(0)
      }))
  })
}
