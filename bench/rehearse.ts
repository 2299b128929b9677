// `npm run bench -- rehearse [-- --orders N]`: a go-live rehearsal of N orders (default 1,000) placed
// over 30 days at the Shopify simulator, against the POD simulator with its real limit (100 requests
// per 10 s, blocking a minute on excess): how many POD calls it makes, how long it takes, and how
// that compares with the least time the shared budget allows. Writes bench/results/rehearse.json.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Logger, LogLevel } from "effect"
import { rehearseHere } from "../src/cli/rehearse.js"
import { loadConfig } from "../src/config/loadConfig.js"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { startShopifySimulator } from "../src/simulator/shopify/index.js"

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const ORDERS = Number(arg("orders") ?? 1000)
const DAYS = 30
const SKUS = ["UTS01-FOREST-S", "UTS01-DARKHE-M", "UTS01-MILITA-S", "UTS01-SPORTG-S", "UTS01-CHARCO-S", "UTS01-WHITE-S"]

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<Record<string, unknown>>
}

const main = async () => {
  const pod = await startPodSimulator({})
  const shopify = await startShopifySimulator({ bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-bench-rehearse-"))
  try {
    const now = Date.now()
    for (let i = 0; i < ORDERS; i++) {
      await post(`${shopify.url}/__sim/orders`, {
        placedAt: new Date(now - ((i + 0.5) / ORDERS) * DAYS * 86_400_000).toISOString(),
        financialStatus: i % 20 === 0 ? "PENDING" : "PAID",
        currencyCode: "USD",
        lineItems: [{
          sku: i % 25 === 0 ? "UNMAPPED-HOODIE-L" : SKUS[i % SKUS.length],
          title: "Podsync Tee",
          quantity: 1 + (i % 3),
          price: "24.00",
          customAttributes: [{ key: "design_front", value: `https://cdn.example.com/d/${i}.png` }]
        }]
      })
    }
    const mappings = path.join(dir, "mappings.csv")
    fs.copyFileSync("config/mappings/demo-shopify.csv", mappings)
    const file = path.join(dir, "podsync.yaml")
    fs.writeFileSync(
      file,
      [
        `dataDir: ${path.join(dir, "data")}`,
        "log: { level: warning }",
        "pod:",
        `  baseUrl: ${pod.url}`,
        "  clientKey: sim-client-key",
        "  clientSecret: sim-client-secret",
        "stores:",
        "  - key: demo-shopify",
        "    platform: shopify",
        "    podStoreId: store-demo",
        "    shopify: { shop: acme.myshopify.com, accessToken: shpat_sim_token, webhookSecret: s, baseUrl: " + shopify.url + " }",
        `    mappings: ${mappings}`,
        "reports:",
        `  dir: ${path.join(dir, "reports")}`
      ].join("\n")
    )
    const config = await Effect.runPromise(loadConfig(file, {}))
    const started = performance.now()
    const summary = await Effect.runPromise(
      rehearseHere(config, "demo-shopify", DAYS).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
    )
    const seconds = (performance.now() - started) / 1000
    const stats = (await (await fetch(`${pod.url}/__sim/stats`)).json()) as Record<string, unknown>
    const result = {
      benchmark: "podsync rehearse",
      command: "npm run bench -- rehearse",
      note: `A rehearsal (podsync rehearse, run here on an embedded database) of ${ORDERS} Shopify orders placed over ${DAYS} days ` +
        "(1 in 20 unpaid, 1 in 25 of an unmapped SKU), against the POD simulator with its real limit: one price quote per order " +
        "that would be drafted, on the shared budget's background lane (default pod.rateLimit: 100 per 10 s, headroom 0.05, so " +
        "95 per window). budgetSeconds is the least time those calls take under the budget; seconds what the command took in all " +
        "(opening and migrating a new embedded database, store reads, planning, quotes, the report); storeReadSeconds the store's " +
        "pages, quoteSeconds planning, coverage and quotes (each quote holds its budget slot until 10 s after its answer). The POD simulator must see no draft created and no 429.",
      host: { cpus: os.cpus().length, node: process.version },
      orders: summary.counts.orders,
      drafted: summary.counts.drafted,
      held: summary.counts.held,
      skipped: summary.counts.skipped,
      quoteCalls: summary.api.quoteCalls,
      coverageCalls: summary.api.coverageCalls,
      podRequests: stats["total"],
      storePages: summary.api.storePages,
      budgetSeconds: summary.api.budgetSeconds,
      seconds: Math.round(seconds * 10) / 10,
      storeReadSeconds: Math.round(summary.api.storeReadMs / 100) / 10,
      quoteSeconds: Math.round((summary.api.elapsedMs - summary.api.storeReadMs) / 100) / 10,
      podMaxInWindow: stats["maxInWindow"],
      rejected429: stats["rejected429"],
      draftsCreated: stats["drafts"],
      podCost: summary.podCost
    }
    fs.mkdirSync("bench/results", { recursive: true })
    fs.writeFileSync("bench/results/rehearse.json", `${JSON.stringify(result, null, 2)}\n`)
    console.log(JSON.stringify(result, null, 2))
  } finally {
    await Promise.all([pod.close(), shopify.close()])
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
