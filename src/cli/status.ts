import * as Command from "@effect/cli/Command"
import { Console, Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { budgetStatusFromLog } from "../observability/BudgetStatus.js"
import { dependencyLabel } from "../observability/DependencyHealth.js"
import { readStatusReport, StatusReport } from "../observability/StatusReport.js"
import { AlertsRepo } from "../repos/AlertsRepo.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { askDaemon, configCommand } from "./AppRuntime.js"
import { existingDbLayer } from "../app/DatabaseLive.js"

// Without a daemon: the database's figures; the budget from the shared send log (who waits is not known).
const fromDatabase = (config: AppConfig) =>
  Effect.gen(function*() {
    const budget = yield* budgetStatusFromLog(config.pod).pipe(Effect.orElseSucceed(() => null))
    return yield* readStatusReport({ storeKeys: config.stores.map((s) => s.key), budget, traffic: null, dryRun: config.pipeline.dryRun })
  }).pipe(Effect.provide(Layer.merge(StatusRepo.Default, AlertsRepo.Default)), Effect.provide(existingDbLayer(config)))

// A daemon on the embedded database holds it alone, and only a daemon knows its waiters and traffic: ask it first.
const fromDaemon = (config: AppConfig) => askDaemon(config, "GET", "/status", StatusReport)

const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? []
  return rows.map((r) => "  " + r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  ").trimEnd()).join("\n")
}

/** 45s, 12m 5s, 3h 12m, 2d 4h. */
export const formatAge = (seconds: number): string => {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`
}

const counts = (rows: ReadonlyArray<{ readonly key: string; readonly label: string; readonly count: number }>) => {
  const byKey = new Map<string, Array<string>>()
  for (const r of rows) if (r.count > 0) byKey.set(r.key, [...(byKey.get(r.key) ?? []), `${r.label} ${r.count}`])
  return byKey.size === 0 ? "none" : [...byKey].map(([key, parts]) => `${key} ${parts.join(", ")}`).join("; ")
}

const budgetLines = (budget: NonNullable<StatusReport["budget"]>) => {
  const waiting = budget.waiting === null
    ? "waiting: unknown (no daemon answered)"
    : `waiting: urgent ${budget.waiting.urgent}, normal ${budget.waiting.normal}, background ${budget.waiting.background}`
  return [
    `POD rate budget (credential ${budget.credential}):`,
    `  in use ${budget.inUse}/${budget.limit} per ${budget.windowSeconds} s window, in flight ${budget.inFlight}`,
    `  ${waiting}`,
    `  ${budget.pausedUntil === null ? "not paused" : `paused after a 429 until ${budget.pausedUntil}`}`
  ]
}

const alertLines = (alerts: NonNullable<StatusReport["alerts"]>) => [
  `Alerts: ${alerts.sent} sent, ${alerts.pending} waiting, ${alerts.failed.length} failed`,
  ...alerts.failed.map((f) =>
    `  FAILED on ${f.channel} after ${f.attempts} attempts: ${f.kind}${f.reason === null ? "" : ` (${f.reason})`}${
      f.referenceId === null ? "" : ` ${f.referenceId}`
    } at ${f.at}: ${f.lastError ?? "no error recorded"}`
  )
]

/** What each kind of recorded request is, in a seller's words. */
const DRY_RUN_KINDS: Readonly<Record<string, string>> = {
  draft: "would-be drafts",
  draft_update: "would-be draft updates",
  tracking: "would-be tracking pushes"
}

/** The status report as tables for a person. Pure. */
export const renderStatus = (status: StatusReport, source: string): string => {
  const lines = [`podsync status (${source}, ${status.generatedAt})`]
  if (status.dryRun !== undefined) {
    const recorded = status.dryRun.recorded
    lines.push(
      `DRY RUN: nothing is sent to the POD service or the stores; ${
        recorded.length === 0
          ? "nothing recorded yet"
          : `recorded instead: ${recorded.map((r) => `${r.storeKey} ${DRY_RUN_KINDS[r.kind] ?? r.kind} ${r.count}`).join(", ")}`
      } (start without --dry-run, pipeline.dryRun: false, to send them)`
    )
  }
  // What is broken comes first: it explains most of what follows.
  for (const r of status.refused ?? []) {
    const who = r.dependency === "pod" ? "the POD service" : dependencyLabel(r.dependency)
    const fix = r.dependency === "pod"
      ? "check pod.clientKey, pod.clientSecret and pod.authHeaders"
      : "check the store's access token or API keys"
    lines.push(
      `CREDENTIALS REFUSED: ${who} since ${r.since} (${
        formatAge(r.forSeconds)
      }; ${r.answer} on ${r.operation}): ${fix}, then restart podsync`
    )
  }
  for (const m of status.mappingFiles ?? []) {
    const kept = m.outcome === "partial"
      ? `only its ${m.rows} valid rows are loaded`
      : `the previous ${m.rows} rows stay loaded until it is fixed`
    const what = m.outcome === "unreadable" ? "could not be read" : `has ${m.issues.length} issue(s)`
    lines.push(`MAPPING FILE: ${m.file} (store ${m.storeKey}) ${what} since ${m.since} (${formatAge(m.forSeconds)}): ${kept}`)
    for (const issue of m.issues.slice(0, 3)) lines.push(`  ${issue}`)
    if (m.issues.length > 3) lines.push(`  … and ${m.issues.length - 3} more (podsync check lists them all)`)
  }
  for (const w of status.webhookSignatures ?? []) {
    lines.push(
      `WEBHOOKS REFUSED: store ${w.storeKey} since ${w.since} (${formatAge(w.forSeconds)}, ${w.refused} deliveries): ${w.detail}`
    )
  }
  const pausedUntil = status.budget?.pausedUntil ?? null
  if (pausedUntil !== null) {
    lines.push(`PAUSED: POD requests paused after a 429 until ${pausedUntil} (the service's block; podsync resumes by itself)`)
  }
  for (const u of status.unreachable ?? []) {
    const waiting = u.waitingOrders === null ? "" : `, ${u.waitingOrders} orders waiting`
    const attempts = `${u.failures} failed attempt${u.failures === 1 ? "" : "s"}`
    lines.push(
      `UNREACHABLE: ${u.dependency === "pod" ? "the POD service" : dependencyLabel(u.dependency)} since ${u.since} (${
        formatAge(u.downSeconds)
      }, ${attempts}${waiting}): ${u.lastError}`
    )
  }
  lines.push("", "Orders by store and state:")
  lines.push(
    status.orders.length === 0
      ? "  no orders yet"
      : table([["store", "state", "orders"], ...status.orders.map((o) => [o.storeKey, o.state, String(o.count)])])
  )

  lines.push("", "Needs a person (podsync explain <reference> tells an order's story):")
  lines.push(
    status.attention.length === 0
      ? "  nothing"
      : table([
        ["store", "what", "orders", "oldest", "oldest order", "what to do"],
        ...status.attention.map((a) => [a.storeKey, a.what, String(a.count), formatAge(a.oldestAgeSeconds), a.oldestReferenceId, a.action])
      ])
  )

  lines.push("", "Queues (orders due now):")
  lines.push(table([
    ["stage", "due", "oldest waiting"],
    ...status.queues.map((q) => [q.stage, String(q.due), q.oldestAgeSeconds === null ? "-" : formatAge(q.oldestAgeSeconds)])
  ]))

  lines.push("", "Pulls:")
  lines.push(
    status.pulls.length === 0
      ? "  no store configured"
      : table([
        ["store", "last pull", "ago"],
        ...status.pulls.map((p) => [p.storeKey, p.lastPullAt ?? "never", p.ageSeconds === null ? "-" : formatAge(p.ageSeconds)])
      ])
  )

  if (status.budget !== null) lines.push("", ...budgetLines(status.budget))

  if (status.alerts !== undefined) lines.push("", ...alertLines(status.alerts))

  if (status.traffic !== null) {
    const t = status.traffic
    const rateLimited = t.pod.filter((p) => p.status === "429").reduce((sum, p) => sum + p.count, 0)
    lines.push(
      "",
      "Since the daemon started:",
      `  POD requests: ${counts(t.pod.map((p) => ({ key: p.operation, label: p.status, count: p.count })))}`,
      `  POD 429 answers: ${rateLimited}`,
      `  store API calls: ${counts(t.stores.map((s) => ({ key: s.storeKey, label: s.status, count: s.count })))}`,
      `  webhooks: ${counts(t.webhooks.map((w) => ({ key: w.source, label: w.outcome, count: w.count })))}`
    )
  }
  return lines.join("\n")
}

/** `podsync status`: orders per state per store, what needs a person, queues, pulls and the rate budget. */
export const statusCommand = configCommand("status", (app) =>
  Effect.gen(function*() {
    // The daemon adds what only it knows (who waits for the budget, traffic since start).
    const status = yield* fromDaemon(app).pipe(
      Effect.map((s) => ({ status: s, source: "running daemon" })),
      Effect.orElse(() =>
        Effect.map(fromDatabase(app), (s) => ({ status: s, source: app.database.url ? "database" : "embedded database" }))
      )
    )
    yield* Console.log(renderStatus(status.status, status.source))
  })).pipe(Command.withDescription("Show orders by state and store, what needs a person, queues and the rate budget"))
