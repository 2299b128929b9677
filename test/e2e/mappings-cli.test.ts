import * as fs from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MappingRoutes } from "../../src/http/MappingRoutes.js"
import { parse } from "csv-parse/sync"
import { cellsOfCsv } from "../../src/mapping/MappingCsv.js"
import { MappingStore } from "../../src/pipeline/MappingStore.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate } from "../../src/pod/PodRequestGate.js"
import { CatalogVariant } from "../../src/pod/schemas/Catalog.js"
import { CatalogRepo } from "../../src/repos/CatalogRepo.js"
import { MappingsRepo } from "../../src/repos/MappingsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { type RunningPodSimulator, startPodSimulator } from "../../src/simulator/pod/index.js"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { freePort, podsync, tempDir } from "../support/cli.js"
import { migratedDataFolder } from "../support/databaseTemplate.js"
import { pgliteDatabase } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
const FRONT = "https://cdn.example.com/front.png"
const STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"

const dir = tempDir("mappings-cli")
let sim: RunningPodSimulator
let shopify: RunningShopifySimulator

const simVariants = async (query: string) => {
  const response = await fetch(`${sim.url}/api/v3/catalog/variants?${query}`, {
    headers: { [DEFAULT_AUTH_HEADERS.key]: "sim-client-key", [DEFAULT_AUTH_HEADERS.secret]: "sim-client-secret" }
  })
  const body = (await response.json()) as { data: Array<unknown> }
  return body.data.map((v) => Schema.decodeUnknownSync(CatalogVariant)(v))
}
const variantBySku = async (sku: string) => (await simVariants(`filter.skus=${sku}`))[0]!
const variantWithStock = async (label: string) => (await simVariants(`filter.stock_labels=${STOCK}${label}&paging.limit=1`))[0]!

/**
 * A config for one Shopify store whose mapping file is `mappings`, in a folder of its own; with
 * `shopifySim`, the store is the Shopify simulator's (so `check` can verify its credentials too).
 */
const writeConfig = (name: string, options: { readonly podUrl?: string; readonly port?: number; readonly shopifySim?: boolean } = {}) => {
  const folder = path.join(dir, name)
  fs.mkdirSync(folder, { recursive: true })
  const mappings = path.join(folder, "acme.csv")
  const config = path.join(folder, "podsync.yaml")
  fs.writeFileSync(
    config,
    [
      `dataDir: ${path.join(folder, "data")}`,
      `server: { host: 127.0.0.1, port: ${options.port ?? 8080} }`,
      `pod: { baseUrl: "${options.podUrl ?? sim.url}", clientKey: sim-client-key, clientSecret: sim-client-secret }`,
      "stores:",
      "  - key: acme-shopify",
      "    platform: shopify",
      "    podStoreId: store-acme",
      options.shopifySim === true
        ? `    shopify: { shop: acme.myshopify.com, accessToken: shpat_sim_token, webhookSecret: secret, baseUrl: "${shopify.url}" }`
        : "    shopify: { shop: acme.myshopify.com, accessToken: token, webhookSecret: secret }",
      `    mappings: ${mappings}`
    ].join("\n")
  )
  const write = (...rows: ReadonlyArray<string>) => fs.writeFileSync(mappings, [HEADER, ...rows].join("\n") + "\n")
  return { config, mappings, write }
}

beforeAll(async () => {
  sim = await startPodSimulator({ rateLimit: false })
  shopify = await startShopifySimulator()
})
afterAll(async () => {
  await Promise.all([sim.close(), shopify.close()])
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("podsync mappings suggest", () => {
  it("writes a draft that podsync check passes: the rows it cannot complete are comments saying what to add", async () => {
    const { config, mappings, write } = writeConfig("suggest", { shopifySim: true })
    // Its embedded database, a copy of a migrated one with nothing in it: the catalog comes from the POD API.
    migratedDataFolder(path.join(path.dirname(config), "data"))
    write(`,UTS01-FOREST-S,,,${FRONT},,,,,,,`, ",uts01-forest-m,,,,,,,,,,", ",NOT-A-POD-SKU,,,,,,,,,,")
    const out = path.join(path.dirname(mappings), "draft.csv")
    const result = await podsync(["mappings", "suggest", "--store", "acme-shopify", "--out", out, "--config", config])
    expect(result.stderr).toContain("unmatched: SKU NOT-A-POD-SKU: no catalog variant has its SKU")
    expect(result.stderr).toContain("2 written commented out for a person to complete")
    expect(result.code).toBe(0)
    const draft = fs.readFileSync(out, "utf8")
    // The contract's columns, then the notes a person reads while completing the file (loading ignores them).
    expect(draft.split("\n")[0]).toBe(`${HEADER},notes`)
    expect((parse(draft, { columns: true, comment: "#", comment_no_infix: true }) as Array<{ notes: string }>).map((r) => r.notes))
      .toEqual([expect.stringMatching(/^suggested by SKU: UTS01-FOREST-S /)])
    expect(cellsOfCsv(draft).map((r) => [r.store_sku, r.pod_variant_id, r.print_front])).toEqual([
      ["UTS01-FOREST-S", (await variantBySku("UTS01-FOREST-S")).variant_id, FRONT]
    ])
    expect(draft.split("\n").filter((l) => l.startsWith("# ,"))).toEqual([
      expect.stringMatching(
        new RegExp(`^# ,uts01-forest-m,${(await variantBySku("UTS01-FOREST-M")).variant_id},.*add print_front or print_back: an image URL`)
      ),
      expect.stringMatching(/^# ,NOT-A-POD-SKU,.*no match: .*write the POD variant's id in pod_variant_id/)
    ])

    // The draft as the store's file: podsync check passes it (its comments are not rows).
    fs.copyFileSync(out, mappings)
    const checked = await podsync(["check", "--config", config])
    expect(checked.stdout).toContain(`acme-shopify: ${mappings}: 1 rows OK`)
    expect(checked.stdout).not.toContain("a POD item needs a front or a back design")
    expect(checked.code).toBe(0)
  })

  it("checks a file several stores share once: each problem said once, naming the stores", async () => {
    const folder = path.join(dir, "shared")
    fs.mkdirSync(folder, { recursive: true })
    const mappings = path.join(folder, "shared.csv")
    fs.writeFileSync(mappings, [HEADER, `,UTS01-FOREST-S,,,${FRONT},,,,,,,`].join("\n") + "\n")
    const config = path.join(folder, "podsync.yaml")
    const keys = ["shop-eu", "shop-us", "shop-uk", "shop-au"]
    fs.writeFileSync(
      config,
      [
        `dataDir: ${path.join(folder, "data")}`,
        `pod: { baseUrl: "${sim.url}", clientKey: sim-client-key, clientSecret: sim-client-secret }`,
        "stores:",
        ...keys.flatMap((key, i) => [
          `  - key: ${key}`,
          "    platform: shopify",
          `    podStoreId: store-${i}`,
          `    shopify: { shop: ${key}.myshopify.com, accessToken: shpat_sim_token, webhookSecret: secret, baseUrl: "${shopify.url}" }`,
          `    mappings: ${mappings}`
        ])
      ].join("\n")
    )
    const result = await podsync(["check", "--config", config])
    expect(result.stdout.split("\n").filter((l) => l.includes(`${mappings}:2: pod_variant_id:`))).toHaveLength(1)
    expect(result.stdout).toContain(`shop-eu, shop-us, shop-uk, shop-au: ${mappings}: 0 rows, 1 issue(s)`)
    expect(result.stderr).toContain("problems: 1 in the mapping files")
    expect(result.code).toBe(1)
  })
})

describe("podsync mappings load, on the embedded database", () => {
  it("loads a valid file, then refuses a broken row by file:line and keeps the rows it had", async () => {
    const { config, mappings, write } = writeConfig("load")
    // Its embedded database, a copy of a migrated one with nothing in it (this is not about making a new one).
    migratedDataFolder(path.join(path.dirname(config), "data"))
    const [forestS, forestM] = [await variantBySku("UTS01-FOREST-S"), await variantBySku("UTS01-FOREST-M")]
    write(`,UTS01-FOREST-S,${forestS.variant_id},,${FRONT},,,,,,,`, `,UTS01-FOREST-M,${forestM.variant_id},,${FRONT},,,,,,,`)
    const loaded = await podsync(["mappings", "load", "--config", config])
    expect(loaded.stdout).toContain(`acme-shopify: loaded 2 rows from ${mappings}`)
    expect(loaded.code).toBe(0)

    write(`,UTS01-FOREST-S,${forestS.variant_id},,${FRONT},,,,,,,`, `,UTS01-FOREST-M,${forestM.variant_id},10001,${FRONT},,,,,,,`)
    const refused = await podsync(["mappings", "load", "--store", "acme-shopify", "--config", config])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`${mappings}:3: pod_variant_id: give exactly one of pod_variant_id and pod_legacy_id, not both`)
    expect(refused.stdout).toContain(`acme-shopify: ${mappings} has 1 issue(s): the previous 2 rows stay loaded until it is fixed`)
  })
})

describe("podsync check", () => {
  it("names an unknown and a discontinued POD variant by file:line, and warns of one out of stock", async () => {
    const { config, mappings, write } = writeConfig("check")
    const [inStock, discontinued, outOfStock] = [
      await variantWithStock("IN_STOCK"),
      await variantWithStock("DISCONTINUED"),
      await variantWithStock("OUT_OF_STOCK")
    ]
    write(
      `,SKU-OK,${inStock.variant_id},,${FRONT},,,,,,,`,
      `,SKU-UNKNOWN,00000000-0000-4000-8000-000000000000,,${FRONT},,,,,,,`,
      `,SKU-GONE,${discontinued.variant_id},,${FRONT},,,,,,,`,
      `,SKU-WAIT,,${outOfStock.legacy_variant_id},${FRONT},,,,,,,`,
      ",GIFT-WRAP,,,,,,,,,,true",
      // The POD SKU typed where its variant id belongs.
      `,SKU-TYPED,${inStock.variant_sku},,${FRONT},,,,,,,`
    )
    const result = await podsync(["check", "--config", config])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `${mappings}:3: pod_variant_id: POD variant 00000000-0000-4000-8000-000000000000 is not in the POD catalog`
    )
    expect(result.stdout).toContain(
      `${mappings}:4: pod_variant_id: POD variant ${discontinued.variant_id} (${discontinued.product?.product_name}, ${discontinued.name}) is discontinued`
    )
    expect(result.stdout).toContain(`warning: ${mappings}:5: pod_legacy_id: POD legacy variant ${outOfStock.legacy_variant_id}`)
    expect(result.stdout).toContain(
      `${mappings}:7: pod_variant_id: "${inStock.variant_sku}" is not a POD variant id: that is the SKU of variant ${inStock.variant_id} (${inStock.product?.product_name}, ${inStock.name}); write ${inStock.variant_id} in pod_variant_id`
    )
    expect(result.stdout).not.toContain(`${mappings}:2:`)
    expect(result.stderr).toContain("problems: 3 in the mapping files")
  })

  it("passes a file with only the required columns: a store key, pod_variant_id or ignore, and a print column", async () => {
    const { config, mappings } = writeConfig("check-minimal", { shopifySim: true })
    const [forestS, forestM] = [await variantBySku("UTS01-FOREST-S"), await variantBySku("UTS01-FOREST-M")]
    fs.writeFileSync(
      mappings,
      [
        "store_sku,pod_variant_id,print_front",
        `UTS01-FOREST-S,${forestS.variant_id},${FRONT}`,
        `UTS01-FOREST-M,${forestM.variant_id},{{attr design_front}}`
      ].join("\n") + "\n"
    )
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(`acme-shopify: ${mappings}: 2 rows OK`)
    expect(result.stdout).toContain(`Catalog: 2 mapped POD variant(s) checked against ${sim.url} OK`)
    expect(result.stdout).toContain("Store acme-shopify (shopify): credentials accepted")
    expect(result.stdout).not.toMatch(/missing columns|unknown columns/)
    expect(result.stderr).not.toContain("problems")
    expect(result.code).toBe(0)

    // A store key column and ignore alone: a file of lines podsync leaves to the store needs no POD or print column.
    fs.writeFileSync(mappings, "store_variant_id,ignore\n44001,true\n")
    const ignored = await podsync(["check", "--config", config])
    expect(ignored.stdout).toContain(`acme-shopify: ${mappings}: 1 rows OK`)
    expect(ignored.stdout).not.toMatch(/missing columns|unknown columns/)
    expect(ignored.code).toBe(0)
  })

  it("says a file separated by semicolons is, and how to save it with commas", async () => {
    const { config, mappings } = writeConfig("check-semicolons", { shopifySim: true })
    const forestS = await variantBySku("UTS01-FOREST-S")
    fs.writeFileSync(mappings, ["store_sku;pod_variant_id;print_front", `UTS01-FOREST-S;${forestS.variant_id};${FRONT}`].join("\n") + "\n")
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(
      `${mappings}:1: the file is separated by semicolons (;): save it as comma-separated CSV (in a spreadsheet: CSV UTF-8, comma)`
    )
    // One problem said once, not a missing column per contract name.
    expect(result.stdout).not.toContain("missing columns")
    expect(result.stderr).toContain("problems: 1 in the mapping files")
    expect(result.code).toBe(1)
  })

  it("warns of a store SKU mapped twice without failing: the first row wins, exit 0", async () => {
    const { config, mappings, write } = writeConfig("check-duplicate", { shopifySim: true })
    const [forestS, forestM] = [await variantBySku("UTS01-FOREST-S"), await variantBySku("UTS01-FOREST-M")]
    write(
      `,UTS01-FOREST-S,${forestS.variant_id},,${FRONT},,,,,,,`,
      `,UTS01-FOREST-M,${forestM.variant_id},,${FRONT},,,,,,,`,
      `,UTS01-FOREST-S,${forestM.variant_id},,${FRONT},,,,,,,`
    )
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(
      `warning: ${mappings}:4: store_sku: SKU UTS01-FOREST-S is mapped again (first on line 2); the first row wins`
    )
    expect(result.stdout).toMatch(new RegExp(`^acme-shopify: ${mappings.replaceAll(".", "\\.")}: \\d+ rows OK$`, "m"))
    expect(result.stderr).not.toContain("problems")
    // The exit code of a check that found nothing wrong.
    expect(result.code).toBe(0)
  })

  it("says the POD API is unreachable, not verified (exit 3), and passes a valid config and file with --unverified-ok", async () => {
    const closed = await freePort()
    const { config, mappings, write } = writeConfig("offline", { podUrl: `http://127.0.0.1:${closed}` })
    write(`,SKU-OK,00000000-0000-4000-8000-000000000000,,${FRONT},,,,,,,`)
    const result = await podsync(["check", "--config", config])
    expect(result.stdout).toContain(`acme-shopify: ${mappings}: 1 rows OK`)
    expect(result.stdout).toContain(`POD: NOT VERIFIED: the POD API at http://127.0.0.1:${closed} did not answer`)
    expect(result.code).toBe(3)
    expect((await podsync(["check", "--config", config, "--unverified-ok"])).code).toBe(0)
  })
})

describe("podsync mappings with a daemon holding the embedded database", () => {
  it("asks the daemon: load reloads its files, suggest drafts from its orders and catalog", async () => {
    const port = await freePort()
    const { config, mappings, write } = writeConfig("daemon", { port })
    const forestS = await variantBySku("UTS01-FOREST-S")
    write(`,UTS01-FOREST-S,${forestS.variant_id},,${FRONT},,,,,,,`)
    const replans: Array<string> = []
    const triggers = Layer.succeed(PipelineTriggers, {
      storeChanged: () => Effect.void,
      podOrderChanged: () => Effect.void,
      replanHeld: (storeKey) => Effect.sync(() => void replans.push(storeKey ?? "*"))
    })
    const pod = PodClient.Default({
      baseUrl: sim.url,
      clientKey: Redacted.make("sim-client-key"),
      clientSecret: Redacted.make("sim-client-secret"),
      authHeaders: DEFAULT_AUTH_HEADERS
    }).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(PodRequestGate.passThrough))
    const server = HttpRouter.empty.pipe(
      HttpRouter.concat(MappingRoutes),
      HttpServer.serve(),
      Layer.provide(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port }))
    )
    const daemon = ManagedRuntime.make(server.pipe(
      Layer.provideMerge(MappingStore.Default({ stores: [{ key: "acme-shopify", mappings }], reloadOnSighup: false, pollEvery: "1 hour" })),
      Layer.provideMerge(Layer.mergeAll(MappingsRepo.Default, CatalogRepo.Default, OrdersRepo.Default, triggers, pod)),
      Layer.provideMerge(pgliteDatabase().layer)
    ))
    try {
      await daemon.runPromise(Effect.flatMap(OrdersRepo, (orders) =>
        orders.upsertPulled(
          sampleOrder({
            storeOrderId: "9001",
            lines: [
              sampleLine({
                variantId: "77001",
                sku: "SHOP-TEE-1",
                title: "Gildan 5000 Unisex Heavy Cotton Tee",
                variantTitle: "Forest Green / M"
              })
            ]
          }),
          "acme-shopify:9001"
        ).pipe(Effect.zipRight(orders.upsertPulled(
          sampleOrder({
            storeOrderId: "9002",
            lines: [
              sampleLine({
                variantId: "77002",
                sku: "UTS01-FOREST-S",
                title: "Gildan 5000 Unisex Heavy Cotton Tee",
                variantTitle: "Forest Green / S"
              }),
              sampleLine({
                variantId: "77009",
                sku: "UTS01-FOREST-L",
                title: "Forest Tee, the old listing",
                variantTitle: "Forest Green / L"
              })
            ]
          }),
          "acme-shopify:9002"
        )))))

      // The daemon polls hourly here: only the command can make it see the edit.
      write(`,UTS01-FOREST-S,${forestS.variant_id},,${FRONT},,,,,,,`, `,UTS01-FOREST-L,${forestS.variant_id},,${FRONT},,,,,,,`)
      const loaded = await podsync(["mappings", "load", "--config", config])
      expect(loaded.stdout).toContain(`acme-shopify: loaded 2 rows from ${mappings}`)
      expect(loaded.stdout).toContain("(loaded by the running daemon)")
      expect(loaded.code).toBe(0)
      const table = await daemon.runPromise(Effect.flatMap(MappingStore, (store) => store.tableFor("acme-shopify")))
      expect(table.rows.map((r) => r.storeSku)).toEqual(["UTS01-FOREST-S", "UTS01-FOREST-L"])
      expect(replans).toContain("acme-shopify")

      const suggested = await podsync(["mappings", "suggest", "--store", "acme-shopify", "--config", config])
      expect(suggested.code).toBe(0)
      expect(suggested.stderr).toContain("3 lines of recent orders")
      const rows = cellsOfCsv(suggested.stdout)
      // The store product of SKU UTS01-FOREST-S has its design in the file: its other variant takes it.
      expect(rows.find((r) => r.store_variant_id === "77001")).toMatchObject({
        store_sku: "SHOP-TEE-1",
        pod_variant_id: (await variantBySku("UTS01-FOREST-M")).variant_id,
        print_front: FRONT
      })
      // Variant 77009 has a SKU the file maps: a row for it would win over the reviewed SKU row.
      expect(rows.map((r) => r.store_variant_id)).not.toContain("77009")

      // --merge: the rows go into the store's own file, and the daemon loads it and re-plans the store.
      replans.length = 0
      const merged = await podsync(["mappings", "suggest", "--store", "acme-shopify", "--merge", "--config", config])
      expect(merged.stderr).toContain(`acme-shopify: added 1 row(s) to ${mappings}, and 0 row(s) to complete as comments`)
      expect(merged.stderr).toContain("(by the running daemon)")
      expect(merged.stdout).toBe("")
      expect(merged.code).toBe(0)
      expect(fs.readFileSync(`${mappings}.bak`, "utf8")).not.toContain("SHOP-TEE-1")
      const after = await daemon.runPromise(Effect.flatMap(MappingStore, (store) => store.tableFor("acme-shopify")))
      expect(after.rows.map((r) => [r.storeVariantId, r.storeSku])).toEqual([
        [undefined, "UTS01-FOREST-S"],
        [undefined, "UTS01-FOREST-L"],
        ["77001", "SHOP-TEE-1"]
      ])
      expect(replans).toContain("acme-shopify")
      // Merged again: the file answers every line now, nothing is added twice.
      const again = await podsync(["mappings", "suggest", "--store", "acme-shopify", "--merge", "--config", config])
      expect(again.stderr).toContain("nothing to add")
      expect(again.code).toBe(0)
    } finally {
      await daemon.dispose()
    }
  })
})
