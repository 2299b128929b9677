/**
 * `npm run conformance [-- options]`: records what the POD client and the
 * daemon send to the POD simulator, and what it answers, and judges every
 * exchange against the service's published OpenAPI document.
 *
 *   --openapi <file>        the OpenAPI 3.1 YAML (default ../shared/reference/pod-openapi-v3.yaml from the repository root)
 *   --out <file>            the JSON summary (default bench/results/conformance.json)
 *   --orders <n>            Shopify orders the daemon takes to fulfilment (default 6)
 *   --daemon-timeout <s>    how long the daemon gets to fulfil them (default 120)
 *   --exchanges <file>      also write every recorded exchange with its verdict, one JSON object a line
 *   --no-daemon             the client tour only
 *   --no-pod-webhooks       the daemon polls only, without subscribing to POD webhooks
 *
 * Exits 1 when a request or an answer is rejected, when a client method was
 * not exercised, or when the daemon run did not finish; 2 on bad usage.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { parse } from "yaml"
import { startPodSimulator } from "../src/simulator/pod/index.js"
import { tourClient } from "./ClientTour.js"
import { DAEMON_LABEL, tally } from "./ConformanceReport.js"
import { runDaemon } from "./DaemonRun.js"
import { makeContract, type SkipRule } from "./OpenApiContract.js"
import { startRecordingProxy } from "./RecordingProxy.js"
import { renderFindings } from "./ReportText.js"

// dist/conformance/run.js → the repository root.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

const SKIPS: ReadonlyArray<SkipRule> = [
  { reason: "legacy /api/v2", applies: (e) => /\/api\/v2(\/|$)/.test(e.path) },
  { reason: "simulator admin", applies: (e) => /^\/(__sim|admin|sim)(\/|$)/.test(e.path) },
  { reason: "429 rate limited", applies: (e) => e.status === 429 }
]

const usage = (message: string): never => {
  console.error(
    `conformance: ${message}\nusage: npm run conformance -- [--openapi file] [--out file] [--orders n] [--daemon-timeout s] [--exchanges file] [--no-daemon] [--no-pod-webhooks]`
  )
  process.exit(2)
}

const positiveInt = (text: string, name: string) => {
  const n = Number(text)
  return Number.isInteger(n) && n > 0 ? n : usage(`${name} must be a positive integer, not ${JSON.stringify(text)}`)
}

const main = async (): Promise<number> => {
  const { values } = parseArgs({
    options: {
      openapi: { type: "string", default: path.join(repoRoot, "../shared/reference/pod-openapi-v3.yaml") },
      out: { type: "string", default: path.join(repoRoot, "bench/results/conformance.json") },
      orders: { type: "string", default: "6" },
      "daemon-timeout": { type: "string", default: "120" },
      exchanges: { type: "string" },
      "no-daemon": { type: "boolean", default: false },
      "no-pod-webhooks": { type: "boolean", default: false }
    }
  })
  const orders = positiveInt(values.orders, "--orders")
  const daemonTimeoutMs = positiveInt(values["daemon-timeout"], "--daemon-timeout") * 1000
  let text: string
  try {
    text = fs.readFileSync(values.openapi, "utf8")
  } catch (error) {
    return usage(`cannot read the OpenAPI document at ${values.openapi} (${(error as Error).message}); give its path with --openapi`)
  }
  const contract = makeContract(parse(text), SKIPS)

  const sim = await startPodSimulator({ rateLimit: false })
  const proxy = await startRecordingProxy(sim.url)
  let tour, daemon
  try {
    console.log(`client tour through ${proxy.url} → ${sim.url}`)
    tour = await tourClient(proxy, sim.url)
    if (!values["no-daemon"]) {
      console.log(`daemon run: ${orders} orders, up to ${daemonTimeoutMs / 1000} s`)
      proxy.label(DAEMON_LABEL)
      daemon = await runDaemon({
        repoRoot,
        podUrl: proxy.url,
        podAdminUrl: sim.url,
        orders,
        timeoutMs: daemonTimeoutMs,
        podWebhooks: !values["no-pod-webhooks"],
        subscribed: () =>
          proxy.exchanges().some((e) =>
            e.label === DAEMON_LABEL && e.method === "POST" && e.path.endsWith("/api/v3/webhooks") && e.status === 200
          )
      })
    }
  } finally {
    await proxy.close()
    await sim.close()
  }

  const judged = proxy.exchanges().map((exchange) => ({ exchange, verdict: contract.check(exchange) }))
  const findings = tally(judged, contract.operations, tour, daemon)
  const notes = [
    ...(contract.droppedNullable > 0
      ? [
        `${contract.droppedNullable} 'nullable' keywords ignored: an OpenAPI 3.1 schema is JSON Schema 2020-12, which has no 'nullable', so a null there is a violation`
      ]
      : []),
    "a kind's count is its occurrences: one answer holding ten orders can count ten times",
    "query values are coerced to the parameter schema's types (repeated keys are arrays); unknown query parameters are violations",
    'answers with 2xx are judged against the "200" response, 4xx/5xx against their status\'s response; 429s, /api/v2 and /__sim are skipped'
  ]
  const summary = { generatedAt: new Date().toISOString(), openapi: values.openapi, node: process.version, notes, ...findings }
  fs.mkdirSync(path.dirname(values.out), { recursive: true })
  fs.writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`)
  if (values.exchanges !== undefined) {
    fs.writeFileSync(values.exchanges, judged.map((j) => `${JSON.stringify({ ...j.exchange, verdict: j.verdict })}\n`).join(""))
  }
  console.log(renderFindings(findings, values.openapi))
  console.log(`\nsummary written to ${values.out}`)
  return findings.ok ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("conformance: the run itself failed:", error)
    process.exit(1)
  }
)
