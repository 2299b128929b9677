/**
 * `npm run conformance:stores [-- options]`: drives the Shopify and Etsy
 * connectors against their simulators through recording proxies, then judges
 * what they sent (and what Etsy's simulator answered) against the platforms'
 * published contracts, kept outside the repository:
 *
 *   --shopify-schema <file>  Shopify's Admin GraphQL introspection (.json or .json.gz)
 *                            (default ../shared/reference/stores/shopify-admin-2026-10.json.gz)
 *   --etsy-oas <file>        Etsy's OAS 3.0 document (default ../shared/reference/stores/etsy-oas-3.0.0-2025-12-25.json)
 *   --etsy-overlay <file>    a JSON Patch applied to it first (default ../shared/reference/stores/etsy-oas-overlay-2026-05-10.json)
 *   --readme <file>          whose "Going live" must name the scopes check names (default README.md)
 *   --out <file>             the JSON summary (default bench/results/store-conformance.json)
 *   --exchanges <file>       also write every recorded exchange, one JSON object a line
 *
 * Exits 1 on any violation (a document the schema refuses, a deprecated use, a requested cost over
 * 1,000 by the published rules, scopes needed and named that differ, an Etsy request or answer the
 * OAS refuses, a step that failed or an operation not driven); 2 on bad usage.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as zlib from "node:zlib"
import { buildClientSchema, type IntrospectionQuery } from "graphql"
import { startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { startShopifySimulator } from "../../src/simulator/shopify/index.js"
import * as ShopifyScopes from "../../src/stores/shopify/ShopifyScopes.js"
import { makeContract, type SkipRule } from "../OpenApiContract.js"
import { isRecord } from "../OpenApiDocument.js"
import { startRecordingProxy } from "../RecordingProxy.js"
import { ETSY_STORE, etsySteps, seedEtsy } from "./EtsyTour.js"
import { tallyHttp, tourFailures } from "./HttpFindings.js"
import { applyPatch, readPatch } from "./JsonPatch.js"
import { namedScopesIn, readmeScopes } from "./ScopeCheck.js"
import { accessIndexOf } from "./ShopifyAccess.js"
import { exportedDocuments, sentDocuments } from "./ShopifyDocuments.js"
import { shopifyFindings } from "./ShopifyFindings.js"
import { SHOPIFY_STORE, SHOPIFY_WRONG_TOKEN_STORE, seedShopify, shopifySteps } from "./ShopifyTour.js"
import { LIST_RULE_NOTE, renderEtsy, renderShopify } from "./StoreReportText.js"
import { connectStores, runTour } from "./StoreTour.js"

// dist/conformance/stores/run.js → the repository root.
const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, "../../..")
const reference = (file: string) => path.join(repoRoot, "../shared/reference/stores", file)

const usage = (message: string): never => {
  console.error(
    `conformance:stores: ${message}\nusage: npm run conformance:stores -- [--shopify-schema file] [--etsy-oas file] [--etsy-overlay file] [--readme file] [--out file] [--exchanges file]`
  )
  process.exit(2)
}

const readJson = (file: string, flag: string): unknown => {
  try {
    const bytes = fs.readFileSync(file)
    return JSON.parse((file.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8"))
  } catch (error) {
    return usage(`cannot read ${file} (${(error as Error).message}); give its path with ${flag}`)
  }
}

/** Etsy's token endpoint is the OAuth 2 flow's `tokenUrl`, not a path of the document: counted, not judged. */
const tokenPathOf = (oas: unknown): string | undefined => {
  const schemes = isRecord(oas) && isRecord(oas["components"]) ? oas["components"]["securitySchemes"] : undefined
  const flows = isRecord(schemes) && isRecord(schemes["oauth2"]) ? schemes["oauth2"]["flows"] : undefined
  const code = isRecord(flows) ? flows["authorizationCode"] : undefined
  return isRecord(code) && typeof code["tokenUrl"] === "string" ? new URL(code["tokenUrl"]).pathname : undefined
}

const main = async (): Promise<number> => {
  const { values } = parseArgs({
    options: {
      "shopify-schema": { type: "string", default: reference("shopify-admin-2026-10.json.gz") },
      "etsy-oas": { type: "string", default: reference("etsy-oas-3.0.0-2025-12-25.json") },
      "etsy-overlay": { type: "string", default: reference("etsy-oas-overlay-2026-05-10.json") },
      readme: { type: "string", default: path.join(repoRoot, "README.md") },
      out: { type: "string", default: path.join(repoRoot, "bench/results/store-conformance.json") },
      exchanges: { type: "string" }
    }
  })
  const introspection = readJson(values["shopify-schema"], "--shopify-schema")
  const data = isRecord(introspection) && isRecord(introspection["data"]) ? introspection["data"] : introspection
  const schema = buildClientSchema(data as IntrospectionQuery)
  const access = accessIndexOf(introspection)
  const overlay = readPatch(readJson(values["etsy-overlay"], "--etsy-overlay"))
  const etsyOas = applyPatch(readJson(values["etsy-oas"], "--etsy-oas"), overlay)
  const tokenPath = tokenPathOf(etsyOas)
  const skips: ReadonlyArray<SkipRule> = [
    { reason: "OAuth token endpoint (the OAS names it only as oauth2's tokenUrl)", applies: (e) => e.path === tokenPath },
    { reason: "simulator admin", applies: (e) => e.path.startsWith("/__sim") },
    { reason: "429 rate limited (Etsy's rate-limit page, not in the OAS)", applies: (e) => e.status === 429 }
  ]
  const contract = makeContract(etsyOas, skips, { security: true })
  const readme = fs.readFileSync(values.readme, "utf8")

  const shopifySim = await startShopifySimulator({ bucket: { maximumAvailable: 1_000_000, restoreRate: 1_000_000 } })
  const etsySim = await startEtsySimulator({ quota: { perSecond: 1_000_000, perDay: 100_000_000 }, rotateRefreshTokens: true })
  const shopifyProxy = await startRecordingProxy(shopifySim.url)
  const etsyProxy = await startRecordingProxy(etsySim.url)
  let stores: Awaited<ReturnType<typeof connectStores>> | undefined
  try {
    console.log(`seeding the simulators (Shopify ${shopifySim.url}, Etsy ${etsySim.url})`)
    const shopifyState = await seedShopify(shopifySim)
    const etsyState = await seedEtsy(etsySim)
    const common = { podStoreId: "conformance", mappings: "config/mappings/unused.csv" }
    const shopify = { shop: shopifySim.shop, webhookSecret: shopifySim.webhookSecret, baseUrl: shopifyProxy.url }
    stores = await connectStores([
      { ...common, key: SHOPIFY_STORE, platform: "shopify", shopify: { ...shopify, accessToken: shopifySim.accessToken } },
      { ...common, key: SHOPIFY_WRONG_TOKEN_STORE, platform: "shopify", shopify: { ...shopify, accessToken: "shpat_not_the_token" } },
      {
        ...common,
        key: ETSY_STORE,
        platform: "etsy",
        etsy: {
          shopId: String(etsySim.shopId),
          keystring: etsySim.keystring,
          sharedSecret: etsySim.sharedSecret,
          refreshToken: etsySim.refreshToken,
          webhookSecret: etsySim.webhookSecret,
          baseUrl: etsyProxy.url
        }
      }
    ])
    console.log("Shopify tour")
    const shopifyTour = await runTour("shopify", stores.connectors, SHOPIFY_STORE, shopifySteps, shopifyState, shopifyProxy)
    console.log("Etsy tour")
    const etsyTour = await runTour("etsy", stores.connectors, ETSY_STORE, etsySteps, etsyState, etsyProxy)

    const shopifyExchanges = shopifyProxy.exchanges()
    const { sent, other } = sentDocuments(shopifyExchanges)
    const exported = await exportedDocuments(new URL("../../src/stores/shopify/", import.meta.url))
    const shopifyResult = shopifyFindings({ schema, access }, exported, sent, namedScopesIn(ShopifyScopes), readmeScopes(readme))
    const otherRequests = [...new Set(other.map((e) => `${e.method} ${e.path} → ${e.status}`))]

    const etsyExchanges = etsyProxy.exchanges()
    const judged = etsyExchanges.map((exchange) => ({ exchange, verdict: contract.check(exchange) }))
    const etsyResult = tallyHttp(judged, contract.operations)
    const etsyNotes = [
      `${contract.rewrittenNullable} OAS 3.0 'nullable: true' read as 'anyOf [schema, null]'; ${overlay.length} overlay operations applied`,
      ...(contract.uncheckedFormats.length > 0 ? [`formats no validator knows, not checked: ${contract.uncheckedFormats.join(", ")}`] : []),
      "answers with 2xx are judged against the \"200\" response, 4xx/5xx against their status's; query and path values are coerced to their schemas' types"
    ]

    const failures = [
      ...tourFailures(shopifyTour, shopifyExchanges),
      ...shopifyResult.failures.map((f) => `shopify: ${f}`),
      ...tourFailures(etsyTour, etsyExchanges),
      ...(etsyResult.requests.rejected > 0
        ? [`etsy: ${etsyResult.requests.rejected} of ${etsyResult.requests.checked} requests rejected by the OAS`]
        : []),
      ...(etsyResult.answers.rejected > 0
        ? [`etsy: ${etsyResult.answers.rejected} of ${etsyResult.answers.checked} answers rejected by the OAS`]
        : [])
    ]
    const summary = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      inputs: {
        shopifySchema: values["shopify-schema"],
        etsyOas: values["etsy-oas"],
        etsyOverlay: values["etsy-overlay"],
        readme: values.readme
      },
      notes: [LIST_RULE_NOTE, ...etsyNotes],
      shopify: { tour: shopifyTour, otherRequests, ...shopifyResult },
      etsy: { tour: etsyTour, ...etsyResult },
      failures,
      ok: failures.length === 0
    }
    fs.mkdirSync(path.dirname(values.out), { recursive: true })
    fs.writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`)
    if (values.exchanges !== undefined) {
      const lines = [
        ...shopifyExchanges.map((e) => ({ platform: "shopify", ...e })),
        ...judged.map((j) => ({ platform: "etsy", ...j.exchange, verdict: j.verdict }))
      ]
      fs.writeFileSync(values.exchanges, lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
    }
    console.log(`\n${renderShopify(shopifyResult, shopifyTour, otherRequests, values["shopify-schema"])}`)
    console.log(`\n${renderEtsy(etsyResult, etsyTour, values["etsy-oas"], values["etsy-overlay"], etsyNotes)}`)
    console.log(failures.length === 0 ? "\nResult: PASS" : `\nResult: FAIL\n${failures.map((f) => `  - ${f}`).join("\n")}`)
    console.log(`\nsummary written to ${values.out}`)
    return failures.length === 0 ? 0 : 1
  } finally {
    await stores?.close()
    await Promise.all([shopifyProxy.close(), etsyProxy.close()])
    await Promise.all([shopifySim.close(), etsySim.close()])
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("conformance:stores: the run itself failed:", error)
    process.exit(1)
  }
)
