/**
 * What operators load beside podsync (#35 item 9): the Grafana dashboard and the Prometheus alert
 * rules in deploy/. Every podsync metric they name is one a running daemon's /metrics exposes, after
 * real work against the simulators: a renamed metric fails here, not silently on a wall screen.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parse } from "yaml"
import { pgliteDatabase } from "../support/database.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"
import { createOrders, driveUntil, statusOf } from "../support/pipeline.js"

interface Rule {
  readonly alert: string
  readonly expr: string
  readonly annotations: { readonly summary: string }
}
const rules = (parse(fs.readFileSync("deploy/prometheus/alerts.yaml", "utf8")) as { groups: Array<{ rules: Array<Rule> }> }).groups
  .flatMap((g) => g.rules)

interface Panel {
  readonly title: string
  readonly targets: ReadonlyArray<{ readonly expr: string }>
}
const dashboard = JSON.parse(fs.readFileSync("deploy/grafana/podsync.json", "utf8")) as { uid: string; panels: ReadonlyArray<Panel> }

const expressions = [...rules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))]
const namesIn = (expr: string) => expr.match(/\bpodsync_[a-z_]+\b/g) ?? []

/** The metric families a scrape declares, with their types (`# TYPE name type`). */
const familiesOf = (scrape: string) =>
  new Map(
    scrape.split("\n").flatMap((line) => {
      const m = /^# TYPE (\S+) (\S+)$/.exec(line)
      return m === null ? [] : [[m[1]!, m[2]!] as const]
    })
  )

/** Whether a name a query uses is in the scrape: a family, or a histogram's series (`_bucket`, `_sum`, `_count`). */
const exposed = (families: ReadonlyMap<string, string>, name: string) => {
  if (families.has(name)) return true
  const series = /^(.*)_(bucket|sum|count)$/.exec(name)
  return series !== null && families.get(series[1]!) === "histogram"
}

describe("the Grafana dashboard and the Prometheus alert rules", () => {
  it("alert on what an operator expects, each with a summary", () => {
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining([
      "PodsyncDown",
      "PodsyncPodRateLimited",
      "PodsyncPodBudgetNearLimit",
      "PodsyncOrdersHeldGrowing",
      "PodsyncDraftsFailing",
      "PodsyncWebhookRejects",
      "PodsyncStoreUnavailable"
    ]))
    for (const rule of rules) expect(rule.annotations.summary, rule.alert).not.toBe("")
    expect(dashboard.uid).toBe("podsync")
    expect(dashboard.panels.every((p) => p.targets.length > 0 && p.targets.every((t) => t.expr !== ""))).toBe(true)
  })

  it.scopedLive("name only metrics a running daemon's /metrics exposes after real work", () =>
    Effect.gen(function*() {
      const stack = yield* scopedStack()
      const { port } = yield* daemonInProcess(stack, pgliteDatabase().layer)
      yield* until("the daemon to be ready", async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)
      yield* Effect.promise(() => createOrders(stack, 4))
      // A delivery with a wrong signature: the receiver rejects it (counted by outcome).
      yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/webhooks/demo-shopify`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-shopify-hmac-sha256": "not-a-signature", "x-shopify-topic": "orders/create" },
          body: "{}"
        })
      )
      yield* Effect.promise(() => driveUntil(stack, () => statusOf(port), (s) => s.fulfilled === 4, 90_000))
      const scrape = yield* Effect.promise(async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text())
      const families = familiesOf(scrape)

      const used = [...new Set(expressions.flatMap(namesIn))].sort()
      expect(used.length).toBeGreaterThan(15)
      expect(used.filter((name) => !exposed(families, name))).toEqual([])
      // After this work the figures are there, not only declared.
      expect(scrape).toMatch(/^podsync_orders\{store="demo-shopify",state="fulfilled"\} 4$/m)
      expect(scrape).toMatch(/^podsync_pod_requests_total\{operation="drafts\.create",/m)
      expect(scrape).toMatch(/^podsync_webhook_deliveries_total\{source="demo-shopify",outcome="rejected"\} [1-9]/m)
    }), 150_000)
})
