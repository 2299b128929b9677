import { DateTime, Effect, Option, Schema } from "effect"
import { AlertsRepo, type AlertsSummary } from "../repos/AlertsRepo.js"
import { type DryRunCount, StatusRepo } from "../repos/StatusRepo.js"
import { BudgetStatus } from "./BudgetStatus.js"
import type { MappingFileProblem } from "../domain/MappingTable.js"
import type { Refusal, Trouble } from "./DependencyHealth.js"
import type { SignatureRefusal } from "./WebhookMetrics.js"
import { ageSeconds, type PipelineFigures, readPipelineFigures } from "./PipelineFigures.js"

const Count = Schema.Number

/**
 * GET /status (JSON) and what `podsync status` prints: the same picture as /metrics, for a
 * person. `orders` and `held` keep the shape they had before the rest was added.
 */
export const StatusReport = Schema.Struct({
  generatedAt: Schema.String,
  orders: Schema.Array(Schema.Struct({ storeKey: Schema.String, state: Schema.String, count: Count })),
  held: Schema.Array(Schema.Struct({
    storeKey: Schema.String,
    reason: Schema.String,
    count: Count,
    oldestAgeSeconds: Schema.Number,
    oldestReferenceId: Schema.String
  })),
  /** Everything a person must act on, with what to do. */
  attention: Schema.Array(Schema.Struct({
    storeKey: Schema.String,
    what: Schema.String,
    count: Count,
    oldestAgeSeconds: Schema.Number,
    oldestReferenceId: Schema.String,
    action: Schema.String
  })),
  queues: Schema.Array(Schema.Struct({ stage: Schema.String, due: Count, oldestAgeSeconds: Schema.NullOr(Schema.Number) })),
  pulls: Schema.Array(Schema.Struct({
    storeKey: Schema.String,
    lastPullAt: Schema.NullOr(Schema.String),
    ageSeconds: Schema.NullOr(Schema.Number)
  })),
  budget: Schema.NullOr(BudgetStatus),
  /** What the answering daemon depends on and cannot reach now (database, POD service, stores); absent when read from the database. */
  unreachable: Schema.optional(Schema.Array(Schema.Struct({
    dependency: Schema.String,
    since: Schema.String,
    downSeconds: Schema.Number,
    failures: Count,
    /** Orders waiting for it, counted when it went down. */
    waitingOrders: Schema.NullOr(Count),
    lastError: Schema.String
  }))),
  /** Services refusing podsync's credentials now (401/403); absent when read from the database. */
  refused: Schema.optional(Schema.Array(Schema.Struct({
    dependency: Schema.String,
    since: Schema.String,
    forSeconds: Schema.Number,
    operation: Schema.String,
    answer: Schema.String
  }))),
  /** Stores whose webhook deliveries fail their signature check now, with what to set; absent when read from the database. */
  webhookSignatures: Schema.optional(Schema.Array(Schema.Struct({
    storeKey: Schema.String,
    since: Schema.String,
    forSeconds: Schema.Number,
    refused: Count,
    detail: Schema.String
  }))),
  /** Mapping files that do not load whole now (the store keeps its previous rows); absent when read from the database. */
  mappingFiles: Schema.optional(Schema.Array(Schema.Struct({
    storeKey: Schema.String,
    file: Schema.String,
    outcome: Schema.Literal("partial", "kept_previous", "unreadable"),
    since: Schema.String,
    forSeconds: Schema.Number,
    rows: Count,
    issues: Schema.Array(Schema.String)
  }))),
  /** Alerts: how many wait to be sent, how many went, and those that failed for good (each with its last error). */
  alerts: Schema.optional(Schema.Struct({
    pending: Count,
    sent: Count,
    failed: Schema.Array(Schema.Struct({
      channel: Schema.String,
      kind: Schema.String,
      reason: Schema.NullOr(Schema.String),
      referenceId: Schema.NullOr(Schema.String),
      attempts: Count,
      lastError: Schema.NullOr(Schema.String),
      at: Schema.String
    }))
  })),
  /**
   * Present while the daemon runs dry (`pipeline.dryRun`, `start --dry-run`; read from the database: as
   * configured): nothing is sent, and `recorded` counts the orders whose would-be request is kept, by
   * store and kind (`draft`, `draft_update`, `tracking`).
   */
  dryRun: Schema.optional(Schema.Struct({
    recorded: Schema.Array(Schema.Struct({ storeKey: Schema.String, kind: Schema.String, count: Count }))
  })),
  /** Counters of the answering daemon since it started; null when read from the database. */
  traffic: Schema.NullOr(Schema.Struct({
    pod: Schema.Array(Schema.Struct({ operation: Schema.String, status: Schema.String, count: Count })),
    stores: Schema.Array(Schema.Struct({ storeKey: Schema.String, status: Schema.String, count: Count })),
    webhooks: Schema.Array(Schema.Struct({ source: Schema.String, outcome: Schema.String, count: Count }))
  }))
})
export type StatusReport = typeof StatusReport.Type

export interface StatusExtras {
  /** Configured stores: one never pulled is listed with no pull time. */
  readonly storeKeys: ReadonlyArray<string>
  readonly budget: BudgetStatus | null
  readonly traffic: StatusReport["traffic"]
  readonly troubles?: ReadonlyArray<Trouble>
  readonly refusals?: ReadonlyArray<Refusal>
  /** Mapping files that do not load whole (the pipeline's MappingStore says which). */
  readonly mappingProblems?: ReadonlyArray<MappingFileProblem>
  readonly signatureRefusals?: ReadonlyArray<SignatureRefusal>
  readonly alerts?: AlertsSummary
  /** The daemon runs dry: what it recorded instead of sending (StatusRepo.dryRunRecorded). */
  readonly dryRun?: ReadonlyArray<DryRunCount>
}

const HELD_ACTIONS: Readonly<Record<string, string>> = {
  unmatched: "add the item's variant id or SKU to the store's mapping file; the order is released by itself",
  unknown_variant: "fix the mapping row: its POD variant is not in the catalog",
  discontinued: "map the item to another POD variant",
  out_of_stock: "nothing, unless it lasts: released when the variant is back in stock",
  missing_design: "add the design to the line item in the store (or fix the mapping's print column)",
  address: "fix the shipping address in the store, or correct it for the POD draft on the order's page in the console",
  held_by_person: "held by hand in the console: release it when it may be drafted",
  released_by_person: "released by hand: re-planned now",
  unpaid: "nothing: drafted once the order is paid",
  rejected_by_pod: "fix the order or its mapping as the POD service said; retried when it changes",
  economy_unavailable:
    "the destination cannot ship Economy: map the store's shipping rate to another method (shipping.byTitle) or change the order's shipping",
  economy_uncovered:
    "Economy does not reach the ZIP: change the order's shipping in the store, set shipping.economyUncovered: standard, or cancel it",
  reference_too_long:
    "the store's order id is too long for a POD reference id (255 characters with the store key): create the order at the POD service by hand; for a new store, a shorter store key leaves more room",
  withheld_by_store:
    "give the store app the access the order's story names (Shopify: Level 2 protected customer data, or a missing scope; podsync check says which); podsync reads the order again and releases it by itself"
}

/** What to do about an order podsync holds in `pod_on_hold` for a condition the POD service confirmed. */
const POD_HOLD_ACTIONS: Readonly<Record<string, string>> = {
  address_unverified:
    "check the address with the buyer, then correct or confirm it at the POD service; podsync goes on once it is verified",
  variant_out_of_stock:
    "wait for the restock, or change the variant at the POD service (and remap it for new orders); podsync goes on once it is in stock"
}

/** What a person should do about orders of this state (and held reason). */
export const actionFor = (state: string, reason: string | null): string => {
  switch (state) {
    case "held":
      return HELD_ACTIONS[reason ?? ""] ?? "see podsync explain for why it is held"
    case "failed":
      return "see podsync explain for what failed, then fix it in the store"
    case "cancel_pending":
      return "cancelled in the store after drafting: cancel the POD order by hand (the API has no cancel)"
    case "pod_on_hold":
      return POD_HOLD_ACTIONS[reason ?? ""] ?? "resolve the hold at the POD service"
    default:
      return "see podsync explain"
  }
}

const iso = (ms: number) => DateTime.formatIso(DateTime.unsafeMake(ms))

/** The report of `figures`, ages measured from the time they were read. Pure. */
export const statusReportOf = (figures: PipelineFigures, extras: StatusExtras): StatusReport => {
  const age = (since: Date) => ageSeconds(figures.now, since)
  const lasting = (since: Date) => ({ since: since.toISOString(), forSeconds: age(since) })
  const pulled = new Map(figures.pulls.map((p) => [p.storeKey, p.lastPullAt]))
  const storeKeys = [...new Set([...extras.storeKeys, ...pulled.keys()])].sort()
  return {
    generatedAt: iso(figures.now),
    orders: figures.orders.map((o) => ({ storeKey: o.storeKey, state: o.state, count: o.count })),
    held: figures.needingAPerson.filter((g) => g.state === "held").map((g) => ({
      storeKey: g.storeKey,
      reason: g.reason ?? "unknown",
      count: g.count,
      oldestAgeSeconds: age(g.oldestSince),
      oldestReferenceId: g.oldestReferenceId
    })),
    attention: [
      ...figures.needingAPerson.map((g) => ({
        storeKey: g.storeKey,
        what: g.reason === null ? g.state : `${g.state}: ${g.reason}`,
        count: g.count,
        oldestAgeSeconds: age(g.oldestSince),
        oldestReferenceId: g.oldestReferenceId,
        action: actionFor(g.state, g.reason)
      })),
      ...figures.refusedTracking.map((r) => ({
        storeKey: r.storeKey,
        what: "tracking refused by the store",
        count: r.count,
        oldestAgeSeconds: age(r.oldestSince),
        oldestReferenceId: r.oldestReferenceId,
        action: "add the tracking number in the store by hand"
      }))
    ].sort((a, b) => a.storeKey.localeCompare(b.storeKey) || b.oldestAgeSeconds - a.oldestAgeSeconds),
    queues: figures.queues.map((q) => ({
      stage: q.stage,
      due: q.due,
      oldestAgeSeconds: q.oldestDueSince === null ? null : age(q.oldestDueSince)
    })),
    pulls: storeKeys.map((storeKey) => {
      const at = pulled.get(storeKey)
      return { storeKey, lastPullAt: at === undefined ? null : iso(at.getTime()), ageSeconds: at === undefined ? null : age(at) }
    }),
    budget: extras.budget,
    ...(extras.troubles === undefined ? {} : {
      unreachable: extras.troubles.map((t) => ({
        dependency: t.dependency,
        since: t.since.toISOString(),
        downSeconds: ageSeconds(figures.now, t.since),
        failures: t.failures,
        waitingOrders: t.waiting,
        lastError: t.message
      }))
    }),
    ...(extras.refusals === undefined ? {} : {
      refused: extras.refusals.map((r) => ({ dependency: r.dependency, ...lasting(r.since), operation: r.operation, answer: r.message }))
    }),
    ...(extras.signatureRefusals === undefined ? {} : {
      webhookSignatures: extras.signatureRefusals.map((r) => ({
        storeKey: r.source,
        ...lasting(r.since),
        refused: r.count,
        detail: r.detail
      }))
    }),
    ...(extras.mappingProblems === undefined ? {} : {
      mappingFiles: extras.mappingProblems.map((p) => ({ ...p, ...lasting(p.since) }))
    }),
    ...(extras.alerts === undefined ? {} : {
      alerts: {
        pending: extras.alerts.pending,
        sent: extras.alerts.sent,
        failed: extras.alerts.failed.map((f) => ({
          channel: f.channel,
          kind: f.kind,
          reason: f.reason,
          referenceId: f.referenceId,
          attempts: f.attempts,
          lastError: f.lastError,
          at: f.createdAt.toISOString()
        }))
      }
    }),
    ...(extras.dryRun === undefined ? {} : { dryRun: { recorded: extras.dryRun.map((r) => ({ ...r })) } }),
    traffic: extras.traffic
  }
}

/** Reads the database's figures now (the alerts' too, when their repository is there) and adds `extras`. */
export const readStatusReport = (extras: Omit<StatusExtras, "dryRun"> & { readonly dryRun?: boolean }) =>
  Effect.gen(function*() {
    const figures = yield* readPipelineFigures
    const alerts = yield* Effect.serviceOption(AlertsRepo)
    const summary = Option.isSome(alerts) ? yield* alerts.value.summary : undefined
    const { dryRun, ...rest } = extras
    const recorded = dryRun === true ? yield* (yield* StatusRepo).dryRunRecorded : undefined
    return statusReportOf(figures, {
      ...rest,
      ...(summary === undefined ? {} : { alerts: summary }),
      ...(recorded === undefined ? {} : { dryRun: recorded })
    })
  })
