import { Clock, Data, Effect, Either, Stream } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import type { RehearsalRun, RehearsedLine, RehearsedOrder, SkuToMap } from "../domain/Rehearsal.js"
import { type DraftPlan, planDraft } from "../mapping/DraftPlan.js"
import { decideEconomyShipping, economyZipOfDraft } from "../mapping/EconomyShipping.js"
import { type SuggestVariant, suggestionFor } from "../mapping/MappingSuggest.js"
import { expectedWarnings, linesToMap, quoteOfDraft, readPlan, secondsUnderBudget } from "../mapping/Rehearsal.js"
import { PodClient } from "../pod/PodClient.js"
import { MAX_COVERAGE_ZIPS } from "../pod/schemas/Coverage.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { decideDraftFailure, describeError } from "./DraftDecision.js"
import { lookUpCoverage } from "./EconomyCoverage.js"
import { PlanningInputs } from "./PlanningInputs.js"

/**
 * A go-live rehearsal of one store (issue 37): its orders of the last N days,
 * read from the store without a cursor (nothing is saved), each planned by
 * planDraft exactly as the match stage plans it, Economy coverage checked in
 * batches as the draft stage checks it, and each order that would be drafted
 * priced by the POD service's quote (a read: it creates nothing). Every POD
 * call goes through the shared budget on the background lane, so a rehearsal
 * next to a running pipeline only takes what the pipeline leaves. Nothing is
 * written: not at the store, not at the POD service, not in the database.
 */

export interface RehearseOptions {
  readonly storeKey: string
  readonly days: number
  /** `pod.rateLimit`: the budget the run's time is measured against. */
  readonly budget: { readonly requests: number; readonly windowSeconds: number; readonly headroom: number }
  /** Quotes in flight at once (the budget paces them; default 8). */
  readonly concurrency?: number
}

export class RehearsalStoreError extends Data.TaggedError("RehearsalStoreError")<{ readonly storeKey: string; readonly cause: unknown }> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `could not read the orders of store ${this.storeKey}: ${reason}`
  }
}

const DAY_MS = 86_400_000

/** The store's orders created in the window, each in its latest version, oldest first. */
const readWindow = (storeKey: string, since: string) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    if (connector === undefined) return yield* Effect.dieMessage(`no connector for store ${storeKey}`)
    const latest = new Map<string, NormalizedOrder>()
    const unreadable: Array<{ storeOrderId: string; problem: string }> = []
    let pages = 0
    // No cursor is read or saved: the walk starts at `since` and its cursor is thrown away.
    yield* connector.pull(null, { since }).pipe(
      Stream.runForEach((page) =>
        Effect.sync(() => {
          pages++
          for (const order of page.orders) {
            const before = latest.get(order.storeOrderId)
            if (before === undefined || before.updatedAt <= order.updatedAt) latest.set(order.storeOrderId, order)
          }
          for (const bad of page.unreadable) unreadable.push({ storeOrderId: bad.storeOrderId ?? "unknown", problem: bad.problem })
        })
      ),
      Effect.mapError((cause) => new RehearsalStoreError({ storeKey, cause }))
    )
    const from = Date.parse(since)
    const orders = [...latest.values()].filter((o) => Date.parse(o.createdAt) >= from)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.storeOrderId.localeCompare(b.storeOrderId))
    return { orders, unreadable, pages }
  })

const lineRecords = (order: NormalizedOrder, plan: Extract<DraftPlan, { _tag: "Ready" }>): ReadonlyArray<RehearsedLine> =>
  plan.lines.map((planned) => {
    const line = order.lines.find((l) => l.lineId === planned.lineId)
    return {
      sku: line?.sku ?? line?.variantId ?? planned.lineId,
      title: [line?.title, line?.variantTitle].filter(Boolean).join(" / "),
      quantity: planned.quantity,
      podCost: null
    }
  })

export const rehearseStore = (options: RehearseOptions) =>
  Effect.gen(function*() {
    const { storeKey } = options
    const inputs = yield* PlanningInputs
    const client = yield* PodClient
    const settings = inputs.settingsFor(storeKey)
    if (settings === undefined) return yield* Effect.dieMessage(`store ${storeKey} is not configured`)
    const started = yield* Clock.currentTimeMillis
    const since = new Date(started - options.days * DAY_MS).toISOString()
    const read = yield* readWindow(storeKey, since)
    const storeReadMs = (yield* Clock.currentTimeMillis) - started
    const table = yield* inputs.tableFor(storeKey)
    const catalog = yield* inputs.catalog
    const planned = read.orders.map((order) => ({ order, plan: planDraft(order, table, catalog, settings) }))

    // Economy coverage, batched as the draft stage batches it (up to 100 ZIPs a call).
    const zips = [
      ...new Set(
        planned.flatMap(({ plan }) => (plan._tag === "Ready" ? [economyZipOfDraft(plan.draft)].filter((z) => z !== undefined) : []))
      )
    ]
    const coverage = zips.length === 0 ? new Map() : yield* lookUpCoverage(zips, storeKey, "background")
    const coverageCalls = Math.ceil(zips.length / MAX_COVERAGE_ZIPS)
    const now = yield* Clock.currentTimeMillis
    const policy = settings.shipping.economyUncovered ?? "standard"

    let quoteCalls = 0
    const rehearsed = yield* Effect.forEach(planned, ({ order, plan }) =>
      Effect.gen(function*() {
        const referenceId = ReferenceId.make(storeKey, order.storeOrderId)
        const base = {
          storeKey,
          storeOrderId: order.storeOrderId,
          referenceId: Either.getOrElse(referenceId, () => `${storeKey}:${order.storeOrderId}`),
          name: order.name,
          createdAt: order.createdAt,
          toMap: linesToMap(order, plan).map(({ sku, title }) => ({ sku, title })),
          shippingMethod: null,
          economyAsStandard: false,
          paid: order.total ?? null,
          podCost: null,
          quoteProblem: null,
          lines: [],
          warnings: []
        } satisfies Partial<RehearsedOrder>
        if (plan._tag !== "Ready") return { ...base, ...readPlan(order, plan) } satisfies RehearsedOrder
        const zip = economyZipOfDraft(plan.draft)
        const economy = decideEconomyShipping(plan.draft, zip === undefined ? undefined : coverage.get(zip), policy, now)
        if (economy._tag === "Hold" || economy._tag === "Wait") {
          const message = economy._tag === "Hold" ? economy.details.message : `${economy.why}: it waits for the check`
          return { ...base, outcome: "held", reason: "economy_uncovered", message, state: "held" } satisfies RehearsedOrder
        }
        const draft = economy._tag === "AsStandard" ? economy.draft : plan.draft
        const lines = lineRecords(order, plan)
        const drafted = {
          ...base,
          outcome: "drafted" as const,
          reason: "",
          state: "drafted" as const,
          shippingMethod: draft.shipping_method ?? "METHOD_STANDARD",
          economyAsStandard: economy._tag === "AsStandard",
          message: economy._tag === "AsStandard" ? economy.reason : economy.note ?? "would be drafted",
          lines,
          warnings: expectedWarnings(draft, catalog)
        }
        const input = quoteOfDraft(draft, catalog)
        if (Either.isLeft(input)) return { ...drafted, quoteProblem: input.left } satisfies RehearsedOrder
        quoteCalls++
        const quoted = yield* Effect.either(client.quotePrice(input.right, { lane: "background", storeKey }))
        if (Either.isLeft(quoted)) {
          const failure = decideDraftFailure(quoted.left, 0)
          // What the service refuses to price it refuses to draft: held, as the draft stage would hold it.
          return failure._tag === "Held"
            ? { ...drafted, outcome: "held", reason: "rejected_by_pod", state: "held", message: failure.message } satisfies RehearsedOrder
            : {
              ...drafted,
              quoteProblem: `the POD service did not answer the quote: ${describeError(quoted.left)}`
            } satisfies RehearsedOrder
        }
        const quote = quoted.right
        return {
          ...drafted,
          podCost: quote.order_total ?? null,
          lines: lines.map((line, i) => ({ ...line, podCost: quote.line_items?.[i]?.line_total ?? null }))
        } satisfies RehearsedOrder
      }), { concurrency: options.concurrency ?? 8 })

    const toMap = yield* suggestionsFor(rehearsed)
    const elapsedMs = (yield* Clock.currentTimeMillis) - started
    const allowed = Math.max(1, Math.floor(options.budget.requests * (1 - options.budget.headroom)))
    return {
      storeKey,
      platform: settings.platform,
      days: options.days,
      from: since,
      to: new Date(started).toISOString(),
      orders: rehearsed,
      toMap,
      unreadable: read.unreadable,
      api: {
        storePages: read.pages,
        coverageCalls,
        quoteCalls,
        elapsedMs,
        storeReadMs,
        budgetSeconds: secondsUnderBudget(coverageCalls + quoteCalls, allowed, options.budget.windowSeconds),
        budget: { requests: allowed, windowSeconds: options.budget.windowSeconds }
      }
    } satisfies RehearsalRun
  }).pipe(Effect.annotateLogs({ store: options.storeKey }), Effect.withSpan("pipeline.rehearse"))

/** Each SKU the held orders need mapped, once, with `mappings suggest`'s word on it (from the catalog cache: no API call). */
const suggestionsFor = (orders: ReadonlyArray<RehearsedOrder>) =>
  Effect.gen(function*() {
    const bySku = new Map<string, { sku: string; title: string; orders: number }>()
    for (const order of orders) {
      for (const line of order.toMap) {
        const seen = bySku.get(line.sku)
        bySku.set(line.sku, { sku: line.sku, title: seen?.title ?? line.title, orders: (seen?.orders ?? 0) + 1 })
      }
    }
    if (bySku.size === 0) return []
    const cached: ReadonlyArray<SuggestVariant> = yield* (yield* CatalogRepo).entries
    return [...bySku.values()].map((line): SkuToMap => {
      const [title, variantTitle] = line.title.split(" / ")
      return {
        ...line,
        suggestion: cached.length === 0
          ? "the catalog cache is empty: start the daemon once (it fills it), then podsync mappings suggest"
          : suggestionFor({ storeSku: line.sku, title, variantTitle }, cached).note
      }
    })
  })
