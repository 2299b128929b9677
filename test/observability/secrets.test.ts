// Secrets never leave podsync: the whole daemon runs in this process against the five
// simulators, every secret field of the config holding a distinct marker (given through
// ${ENV}, as in production). It works, fails (401 from a wrong POD secret, rejected and
// duplicate webhooks) and is asked for /status and /metrics; then everything it said is
// searched for the markers: every log line (JSON, at trace level), anything written to the
// console, every HTTP answer, every row of its database, config error messages.
import { createHmac, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Logger, LogLevel, Schema } from "effect"
import { sql } from "kysely"
import { daemonLayer } from "../../src/app/DaemonLive.js"
import { renderStatus } from "../../src/cli/status.js"
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js"
import { Db } from "../../src/db/Db.js"
import { MetricsRoutes, statusResponse } from "../../src/http/MetricsRoutes.js"
import { StatusReport } from "../../src/observability/StatusReport.js"
import { startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { startJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import { signWebhook as signPodWebhook, startPodSimulator } from "../../src/simulator/pod/index.js"
import { startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { startWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { freePort, tempDir } from "../support/cli.js"
import { MAPPED_SKUS } from "../support/pipeline.js"

const b64 = (text: string) => Buffer.from(text).toString("base64")
const ETSY_USER = 873421905
const ETSY_WEBHOOK_KEY = "mk-etsy-webhook-key-2e5a"
const ETSY_PREVIOUS_WEBHOOK_KEY = "mk-etsy-previous-webhook-key-a0c3"

/** Every secret of the config, by the environment variable that carries it. */
const SECRETS = {
  POD_CLIENT_KEY: "mk-pod-client-key-81f3",
  POD_CLIENT_SECRET: "mk-pod-client-secret-27ac",
  POD_WEBHOOK_KEY: "mk-pod-webhook-key-5d10",
  POD_WEBHOOK_CLIENT_KEY: "mk-pod-webhook-client-key-c4e2",
  SHOPIFY_TOKEN: "shpat_mk-shopify-token-9b7e",
  SHOPIFY_WEBHOOK_SECRET: "mk-shopify-webhook-secret-3a61",
  SHOPIFY_PREVIOUS_WEBHOOK_SECRET: "mk-shopify-previous-webhook-secret-77d0",
  WOO_CONSUMER_KEY: "ck_mk-woo-consumer-key-e5c9",
  WOO_CONSUMER_SECRET: "cs_mk-woo-consumer-secret-0f48",
  WOO_WEBHOOK_SECRET: "mk-woo-webhook-secret-b2d6",
  WOO_PREVIOUS_WEBHOOK_SECRET: "mk-woo-previous-webhook-secret-19be",
  ETSY_KEYSTRING: "mk-etsy-keystring-64aa",
  ETSY_SHARED_SECRET: "mk-etsy-shared-secret-1c9f",
  ETSY_REFRESH_TOKEN: `${ETSY_USER}.mk-etsy-refresh-token-d3b8`,
  ETSY_WEBHOOK_SECRET: `whsec_${b64(ETSY_WEBHOOK_KEY)}`,
  ETSY_PREVIOUS_WEBHOOK_SECRET: `whsec_${b64(ETSY_PREVIOUS_WEBHOOK_KEY)}`,
  JSONFEED_TOKEN: "mk-jsonfeed-token-8e21",
  JSONFEED_WEBHOOK_SECRET: "mk-jsonfeed-webhook-secret-f70c",
  JSONFEED_PREVIOUS_WEBHOOK_SECRET: "mk-jsonfeed-previous-webhook-secret-4d92"
} as const

/** What would betray a secret: each one as written, base64-encoded, and the encoded credential pairs sent as headers. */
const giveaways = (): ReadonlyArray<readonly [string, string]> => {
  const plain = Object.entries(SECRETS).flatMap(([name, value]) => [[name, value], [`${name} (base64)`, b64(value)]] as const)
  return [
    ...plain,
    ["Etsy webhook key", ETSY_WEBHOOK_KEY],
    ["Etsy previous webhook key", ETSY_PREVIOUS_WEBHOOK_KEY],
    ["WooCommerce Basic credentials", b64(`${SECRETS.WOO_CONSUMER_KEY}:${SECRETS.WOO_CONSUMER_SECRET}`)],
    ["Etsy x-api-key", `${SECRETS.ETSY_KEYSTRING}:${SECRETS.ETSY_SHARED_SECRET}`]
  ]
}

const leaksIn = (where: string, text: string) =>
  giveaways().filter(([, value]) => text.includes(value)).map(([name]) => `${name} in ${where}`)

const configYaml = (
  urls: { pod: string; shopify: string; woo: string; etsy: string; jsonfeed: string; shop: string },
  port: number,
  dir: string
) => {
  const shopifyMap = path.join(dir, "shopify.csv")
  fs.copyFileSync("config/mappings/demo-shopify.csv", shopifyMap)
  const emptyMap = path.join(dir, "empty.csv")
  fs.writeFileSync(emptyMap, fs.readFileSync("config/mappings/demo-shopify.csv", "utf8").split("\n")[0] + "\n")
  return [
    `dataDir: ${path.join(dir, "data")}`,
    "log: { level: trace }",
    `server: { host: 127.0.0.1, port: ${port} }`,
    "pod:",
    `  baseUrl: ${urls.pod}`,
    "  clientKey: ${POD_CLIENT_KEY}",
    "  clientSecret: ${POD_CLIENT_SECRET}",
    "  timeoutMs: 5000",
    "  webhooks:",
    `    publicUrl: http://127.0.0.1:${port}/webhooks/pod`,
    "    signingKey: ${POD_WEBHOOK_KEY}",
    "    clientKey: ${POD_WEBHOOK_CLIENT_KEY}",
    "stores:",
    "  - key: acme-shopify",
    "    platform: shopify",
    "    podStoreId: store-1",
    `    shopify: { shop: ${urls.shop}, accessToken: "\${SHOPIFY_TOKEN}", webhookSecret: "\${SHOPIFY_WEBHOOK_SECRET}", previousWebhookSecret: "\${SHOPIFY_PREVIOUS_WEBHOOK_SECRET}", baseUrl: "${urls.shopify}" }`,
    `    mappings: ${shopifyMap}`,
    "  - key: acme-woo",
    "    platform: woocommerce",
    "    podStoreId: store-2",
    `    woocommerce: { url: "${urls.woo}", consumerKey: "\${WOO_CONSUMER_KEY}", consumerSecret: "\${WOO_CONSUMER_SECRET}", webhookSecret: "\${WOO_WEBHOOK_SECRET}", previousWebhookSecret: "\${WOO_PREVIOUS_WEBHOOK_SECRET}" }`,
    `    mappings: ${emptyMap}`,
    "  - key: acme-etsy",
    "    platform: etsy",
    "    podStoreId: store-3",
    `    etsy: { shopId: "48213795", keystring: "\${ETSY_KEYSTRING}", sharedSecret: "\${ETSY_SHARED_SECRET}", refreshToken: "\${ETSY_REFRESH_TOKEN}", webhookSecret: "\${ETSY_WEBHOOK_SECRET}", previousWebhookSecret: "\${ETSY_PREVIOUS_WEBHOOK_SECRET}", baseUrl: "${urls.etsy}" }`,
    `    mappings: ${emptyMap}`,
    "  - key: acme-feed",
    "    platform: jsonfeed",
    "    podStoreId: store-4",
    `    jsonfeed: { baseUrl: "${urls.jsonfeed}", token: "\${JSONFEED_TOKEN}", webhookSecret: "\${JSONFEED_WEBHOOK_SECRET}", previousWebhookSecret: "\${JSONFEED_PREVIOUS_WEBHOOK_SECRET}" }`,
    `    mappings: ${emptyMap}`,
    "schedules:",
    '  pull: "*/2 * * * * *"',
    '  reconcile: "*/3 * * * * *"',
    '  catalog: "0 0 * * * *"',
    '  report: "0 0 6 * * *"',
    `reports: { dir: ${path.join(dir, "reports")} }`
  ].join("\n")
}

const simulators = Effect.acquireRelease(
  Effect.promise(async () => {
    const [pod, shopify, woo, etsy, jsonfeed] = await Promise.all([
      // The service knows the key but another secret: every POD request is refused with 401.
      startPodSimulator({
        clientKey: SECRETS.POD_CLIENT_KEY,
        clientSecret: "the-real-pod-secret",
        webhookSigningKey: SECRETS.POD_WEBHOOK_KEY,
        rateLimit: false
      }),
      startShopifySimulator({
        accessToken: SECRETS.SHOPIFY_TOKEN,
        webhookSecret: SECRETS.SHOPIFY_WEBHOOK_SECRET,
        bucket: { maximumAvailable: 1_000_000, restoreRate: 1_000_000 }
      }),
      startWooCommerceSimulator({
        consumerKey: SECRETS.WOO_CONSUMER_KEY,
        consumerSecret: SECRETS.WOO_CONSUMER_SECRET,
        webhookSecret: SECRETS.WOO_WEBHOOK_SECRET,
        // A host that strips the Authorization header: the key goes in the query string, and still shows nowhere.
        stripsAuthorizationHeader: true
      }),
      startEtsySimulator({
        userId: ETSY_USER,
        keystring: SECRETS.ETSY_KEYSTRING,
        sharedSecret: SECRETS.ETSY_SHARED_SECRET,
        refreshToken: SECRETS.ETSY_REFRESH_TOKEN,
        webhookSecret: SECRETS.ETSY_WEBHOOK_SECRET
      }),
      startJsonFeedSimulator({ token: SECRETS.JSONFEED_TOKEN, webhookSecret: SECRETS.JSONFEED_WEBHOOK_SECRET, rateLimit: false })
    ])
    return { pod, shopify, woo, etsy, jsonfeed }
  }),
  (sims) => Effect.promise(() => Promise.all(Object.values(sims).map((s) => s.close()))).pipe(Effect.ignore)
)

const http = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, text: await response.text() }
  })

/** Real time passes until `done` holds (the daemon works over real HTTP and cron ticks). */
const until = <R>(what: string, done: Effect.Effect<boolean, never, R>, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const deadline = performance.now() + timeoutMs
    while (!(yield* done)) {
      if (performance.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("100 millis")
    }
  })

describe("secrets", () => {
  it.scopedLive("appear nowhere: not in logs, HTTP answers, the database or error messages, whatever fails", () =>
    Effect.gen(function*() {
      const sims = yield* simulators
      const dir = tempDir("secrets")
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const [port, metricsPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
      const file = path.join(dir, "podsync.yaml")
      fs.writeFileSync(
        file,
        configYaml(
          {
            pod: sims.pod.url,
            shopify: sims.shopify.url,
            shop: sims.shopify.shop,
            woo: sims.woo.url,
            etsy: sims.etsy.url,
            jsonfeed: sims.jsonfeed.baseUrl
          },
          port,
          dir
        )
      )
      const config = yield* loadConfig(file, { ...SECRETS })
      const daemon = `http://127.0.0.1:${port}`
      const observed = `http://127.0.0.1:${metricsPort}`

      // Orders to work on: two the mapping covers (drafting fails: 401), one it does not (held).
      for (const sku of [MAPPED_SKUS[0]!, MAPPED_SKUS[1]!, "NOT-MAPPED"]) {
        yield* http(`${sims.shopify.url}/__sim/orders`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            financialStatus: "PAID",
            lineItems: [{
              sku,
              title: "Tee",
              quantity: 1,
              price: "24.00",
              customAttributes: [{ key: "design_front", value: "https://cdn.example.com/d.png" }]
            }]
          })
        })
      }

      // Everything the daemon logs, as the JSON lines the production logger writes, at every level.
      const lines: Array<string> = []
      const logged = Layer.merge(
        Logger.replace(Logger.defaultLogger, Logger.map(Logger.jsonLogger, (line) => void lines.push(line))),
        Logger.minimumLogLevel(LogLevel.All)
      )
      // GET /metrics and /status as the lead wires them, on a second port beside the daemon's own server.
      const observability = HttpRouter.empty.pipe(
        HttpRouter.concat(MetricsRoutes),
        HttpRouter.get("/status", statusResponse),
        HttpServer.serve(),
        Layer.provide(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: metricsPort })),
        Layer.provideMerge(daemonLayer(config, { idle: "200 millis" }))
      )
      // Anything written to the console besides the logger (libraries, stray prints).
      const printed: Array<string> = []
      for (const method of ["log", "error", "warn", "info", "debug"] as const) {
        const original = console[method]
        console[method] = (...args: Array<unknown>) => void printed.push(args.map(String).join(" "))
        yield* Effect.addFinalizer(() => Effect.sync(() => void (console[method] = original)))
      }
      const answers: Array<readonly [string, string]> = []
      // The daemon runs in this scope; closing it shuts the daemon down (its last log lines count too).
      const { table, rows } = yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(observability).pipe(Effect.provide(logged))
        const ask = (label: string, url: string, init?: RequestInit) =>
          Effect.tap(http(url, init), (r) => Effect.sync(() => void answers.push([label, r.text])))

        yield* until("the daemon to be ready", Effect.map(http(`${daemon}/readyz`), (r) => r.status === 200))
        const podRefusals = Effect.map(http(`${sims.pod.url}/__sim/stats`), (r) => (JSON.parse(r.text).byStatus?.["401"] ?? 0) as number)
        yield* until(
          "orders pulled and POD requests refused",
          Effect.gen(function*() {
            const status = JSON.parse((yield* http(`${observed}/status`)).text) as StatusReport
            return status.orders.reduce((n, o) => n + o.count, 0) >= 3 && (yield* podRefusals) >= 2 &&
              lines.some((l) => l.includes("refuses podsync's credentials"))
          })
        )

        // Webhooks: accepted, duplicate, rejected (bad signatures), for the POD service and the stores.
        const shopifyBody = JSON.stringify({ id: 1001, name: "#1001", updated_at: "2026-11-21T10:00:00Z" })
        const shopifyHeaders = (secret: string) => ({
          "content-type": "application/json",
          "x-shopify-topic": "orders/updated",
          "x-shopify-hmac-sha256": createHmac("sha256", secret).update(shopifyBody).digest("base64"),
          "x-shopify-shop-domain": sims.shopify.shop,
          "x-shopify-event-id": "event-1"
        })
        const shopifyHook = `${daemon}/webhooks/acme-shopify`
        expect(
          (yield* ask("shopify webhook", shopifyHook, {
            method: "POST",
            headers: shopifyHeaders(SECRETS.SHOPIFY_WEBHOOK_SECRET),
            body: shopifyBody
          })).status
        ).toBe(200)
        expect(
          (yield* ask("shopify duplicate", shopifyHook, {
            method: "POST",
            headers: shopifyHeaders(SECRETS.SHOPIFY_WEBHOOK_SECRET),
            body: shopifyBody
          })).text
        ).toContain("duplicate")
        expect(
          (yield* ask("shopify forged", shopifyHook, { method: "POST", headers: shopifyHeaders("guessed-secret"), body: shopifyBody }))
            .status
        ).toBe(401)
        for (const store of ["acme-woo", "acme-etsy", "acme-feed"]) {
          const answer = yield* ask(`${store} forged`, `${daemon}/webhooks/${store}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-wc-webhook-signature": "Zm9yZ2Vk",
              "webhook-signature": "v1,Zm9yZ2Vk",
              "x-signature": "forged"
            },
            body: "{}"
          })
          expect([400, 401]).toContain(answer.status)
        }
        const podBody = JSON.stringify({ type: "order_completed", order: { gearment_id: "o-1", vendor_id: "acme-shopify:1" } })
        const podHeaders = (key: string, nonce: string) => {
          const timestamp = String(Math.floor(Date.now() / 1000))
          return {
            "content-type": "application/json",
            "x-connect-timestamp": timestamp,
            "x-connect-nonce": nonce,
            "x-connect-client-key": SECRETS.POD_WEBHOOK_CLIENT_KEY,
            "x-connect-signature": signPodWebhook(key, "/webhooks/pod", nonce, timestamp, podBody)
          }
        }
        expect(
          (yield* ask("pod webhook", `${daemon}/webhooks/pod`, {
            method: "POST",
            headers: podHeaders(SECRETS.POD_WEBHOOK_KEY, randomUUID()),
            body: podBody
          })).status
        ).toBe(200)
        expect(
          (yield* ask("pod forged", `${daemon}/webhooks/pod`, {
            method: "POST",
            headers: podHeaders("guessed-key", randomUUID()),
            body: podBody
          })).status
        ).toBe(401)

        // What a person and a scraper see.
        for (
          const [label, url] of [
            ["status", `${observed}/status`],
            ["metrics", `${observed}/metrics`],
            ["daemon status", `${daemon}/status`],
            ["daemon metrics", `${daemon}/metrics`],
            ["readyz", `${daemon}/readyz`],
            ["healthz", `${daemon}/healthz`]
          ] as const
        ) yield* ask(label, url)
        const report = yield* Schema.decodeUnknown(StatusReport)(JSON.parse(answers.find(([l]) => l === "status")![1]))
        const table = renderStatus(report, "running daemon")
        expect(table).toContain("held: unmatched")
        expect(answers.find(([l]) => l === "metrics")![1]).toMatch(/podsync_orders\{store="acme-shopify",state="\w+"\} \d/)

        // Every row the daemon stored.
        const db = Context.get(context, Db)
        const tables = yield* db.use((k) =>
          sql<{ tablename: string }>`select tablename from pg_tables where schemaname = current_schema()`.execute(k)
        )
        const rows = yield* Effect.forEach(tables.rows, ({ tablename }) =>
          db.use((k) =>
            sql<Record<string, unknown>>`select * from ${sql.table(tablename)}`.execute(k)
          ).pipe(
            Effect.map((r) => [tablename, JSON.stringify(r.rows)] as const)
          ))
        expect(
          rows.find(([t]) => t === "order_events")![1]
        ).toContain("pulled from the store")
        return { table, rows }
      }))
      expect(lines.some((l) => l.includes("podsync stopped"))).toBe(true)

      const corpus: ReadonlyArray<readonly [string, string]> = [
        ["logs", lines.join("\n")],
        ["console", printed.join("\n")],
        ...answers.map(([label, text]) => [`GET/POST ${label}`, text] as const),
        ["status table", table],
        ...rows.map(([t, json]) => [`table ${t}`, json] as const),
        ["decoded config", `${JSON.stringify(config)}\n${String(config.pod.clientSecret)}`]
      ]
      // One JSON object per line, pipeline events annotated with the store and the store order.
      expect(lines.length).toBeGreaterThan(20)
      const events = lines.map((l) => JSON.parse(l) as { message: string; annotations: Record<string, unknown> })
      expect(lines.every((l) => !l.includes("\n"))).toBe(true)
      // The refusal is logged once, when the service first refuses, naming the dependency and the call
      // (whichever comes first: the webhook subscriptions at start, a look-up, a draft); a call for
      // orders also names their store and store orders (LookUpStage, DraftStage).
      const refusal = events.find((e) => e.message.includes("refuses podsync's credentials"))?.annotations
      expect(refusal).toMatchObject({ dependency: "pod", operation: expect.stringMatching(/^[a-z]+\.[A-Za-z]+$/) })
      if (refusal !== undefined && ("order" in refusal || "orders" in refusal)) {
        expect(refusal).toMatchObject({ store: "acme-shopify" })
      }
      expect(lines.some((l) => l.includes("webhook rejected"))).toBe(true)
      expect(corpus.flatMap(([where, text]) => leaksIn(where, text))).toEqual([])
    }), { timeout: 60_000 })

  it("appear nowhere in the errors of a config that is wrong where they are", () => {
    const dir = tempDir("secrets-config")
    try {
      const urls = {
        pod: "http://127.0.0.1:1",
        shopify: "http://127.0.0.1:2",
        shop: "acme.myshopify.com",
        woo: "http://127.0.0.1:3",
        etsy: "http://127.0.0.1:4",
        jsonfeed: "http://127.0.0.1:5"
      }
      const text = configYaml(urls, 8080, dir)
        .replace("dataDir:", `database: { url: "mysql://podsync:${SECRETS.POD_CLIENT_SECRET}@db/podsync" }\ndataDir:`)
      // Every secret with a stray space around it (a common copy-paste slip): each one is refused, none is shown.
      const padded = Object.fromEntries(Object.entries(SECRETS).map(([name, value]) => [name, ` ${value} `]))
      const result = parseConfig(text, "podsync.yaml", padded)
      expect(Either.isLeft(result)).toBe(true)
      const error = Either.isLeft(result) ? result.left : undefined
      expect(error?.issues.map((i) => i.path)).toEqual(
        expect.arrayContaining(["database.url", "pod.clientSecret", "stores[1].woocommerce.consumerSecret"])
      )
      expect(leaksIn("the config error", `${error?.message}\n${JSON.stringify(error)}`)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
