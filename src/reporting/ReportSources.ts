/**
 * Gathers what a report is built from: podsync's orders (the database), the
 * POD service's drafts and orders (batched list calls in the background lane
 * of the rate budget) and the stores' own orders (their connectors, which pace
 * themselves). An API that cannot be read is recorded, not fatal: the report
 * is still written, saying its drift ledger is incomplete.
 */
import { Chunk, Clock, Effect, Option, Stream } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodError } from "../pod/PodErrors.js"
import type { DraftListItem as Draft } from "../pod/schemas/Drafts.js"
import type { OrderListItem as Order } from "../pod/schemas/Orders.js"
import { AlertsRepo } from "../repos/AlertsRepo.js"
import { ReportsRepo } from "./ReportsRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import type { StoreError } from "../stores/StoreErrors.js"
import { isActiveDraft, isActiveOrder } from "../reports/PodRecords.js"
import {
  type PodSnapshot,
  type ReportInput,
  type ReportOrder,
  type ReportPeriod,
  type ReportSettings,
  type ReportStore,
  type StoreSnapshot
} from "../reports/ReportInput.js"

/** Reference ids per list call (the service's page size). */
export const REFERENCE_BATCH = 100
const PAGE = { limit: 100 } as const
/** Store orders read one by one at once, per store. */
const STORE_READS = 4

export const describePodError = (error: PodError): string => {
  const base = `${error.operation} ${error._tag.replace(/^Pod|Error$/g, "")}`
  switch (error._tag) {
    case "PodTransportError":
      return `${base} (${error.reason}: ${error.cause})`
    case "PodInvalidRequestError":
      return `${base} (${error.issue})`
    default:
      return "status" in error ? `${base} (HTTP ${String(error.status)})` : base
  }
}

const collect = <A, E>(stream: Stream.Stream<A, E>) => Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray))

/** Drafts and orders created since the period began, and those of every reference id given (per store, 100 a call). */
const readPod = (since: number, referencesByStore: ReadonlyMap<string, ReadonlyArray<string>>) =>
  Effect.gen(function*() {
    const client = yield* PodClient
    const created = { filter: { created_at_min: new Date(since).toISOString() }, paging: PAGE }
    const background = { lane: "background" as const }
    const drafts: Array<Draft> = [...yield* collect(client.streamDrafts(created, background))]
    const orders: Array<Order> = [...yield* collect(client.streamOrders(created, background))]
    for (const [storeKey, references] of referencesByStore) {
      for (let i = 0; i < references.length; i += REFERENCE_BATCH) {
        const query = { filter: { reference_ids: references.slice(i, i + REFERENCE_BATCH) }, paging: PAGE }
        const options = { lane: "background" as const, storeKey }
        drafts.push(...yield* collect(client.streamDrafts(query, options)))
        orders.push(...yield* collect(client.streamOrders(query, options)))
      }
    }
    return { drafts, orders, error: null } satisfies PodSnapshot
  }).pipe(Effect.catchAll((error: PodError) =>
    Effect.as(
      Effect.logWarning("the report could not read the POD service").pipe(Effect.annotateLogs({ error: describePodError(error) })),
      { drafts: [], orders: [], error: describePodError(error) } satisfies PodSnapshot
    )
  ))

/** The latest version of every order the store changed since the period began (the store's own listing). */
const listStore = (storeKey: string, since: number) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(storeKey)
    if (connector === undefined) return { storeKey, orders: [], unknown: [], error: "no connector for this store" } satisfies StoreSnapshot
    const latest = new Map<string, NormalizedOrder>()
    yield* connector.pull(null, { since: new Date(since).toISOString() }).pipe(
      Stream.runForEach((page) =>
        Effect.sync(() => {
          for (const order of page.orders) {
            const known = latest.get(order.storeOrderId)
            if (known === undefined || known.updatedAt <= order.updatedAt) latest.set(order.storeOrderId, order)
          }
        })
      )
    )
    return { storeKey, orders: [...latest.values()], unknown: [], error: null } satisfies StoreSnapshot
  }).pipe(Effect.catchAll((error: StoreError) =>
    Effect.as(
      Effect.logWarning("the report could not list a store's orders").pipe(Effect.annotateLogs({ store: storeKey, error: error.message })),
      { storeKey, orders: [], unknown: [], error: error.message } satisfies StoreSnapshot
    )
  ))

/** Reads single store orders the listing did not return; the store's "no such order" is evidence too. */
const readStoreOrders = (snapshot: StoreSnapshot, storeOrderIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const connector = (yield* StoreConnectors).get(snapshot.storeKey)
    if (connector === undefined || snapshot.error !== null || storeOrderIds.length === 0) return snapshot
    const read = yield* Effect.forEach(storeOrderIds, (id) => Effect.map(connector.getOrder(id), (found) => ({ id, found })), {
      concurrency: STORE_READS
    })
    return {
      ...snapshot,
      orders: [...snapshot.orders, ...read.flatMap((r) => Option.toArray(r.found))],
      unknown: read.filter((r) => Option.isNone(r.found)).map((r) => r.id)
    } satisfies StoreSnapshot
  }).pipe(Effect.catchAll((error: StoreError) => Effect.succeed({ ...snapshot, error: error.message } satisfies StoreSnapshot)))

export interface GatherOptions {
  readonly period: ReportPeriod
  readonly stores: ReadonlyArray<ReportStore>
  readonly store: string | null
  readonly configuredStoreKeys: ReadonlyArray<string>
  readonly settings: ReportSettings
}

/** The alerts that failed for good (none where the outbox is not part of the composition). */
const failedAlerts = Effect.flatMap(Effect.serviceOption(AlertsRepo), (repo) =>
  Option.isNone(repo)
    ? Effect.succeed([])
    : repo.value.summary.pipe(
      Effect.map((s) =>
        s.failed.map((f) => ({
          channel: f.channel,
          kind: f.kind,
          referenceId: f.referenceId,
          attempts: f.attempts,
          lastError: f.lastError
        }))
      )
    ))

export const gatherReportInput = (options: GatherOptions) =>
  Effect.gen(function*() {
    const repo = yield* ReportsRepo
    const { period } = options
    const keys = options.stores.map((s) => s.key)
    const generatedAt = yield* Clock.currentTimeMillis
    const stored = yield* repo.ordersFor({ from: new Date(period.from), to: new Date(period.to) }, keys)
    const listed = yield* Effect.forEach(keys, (key) => listStore(key, period.from), { concurrency: 2 })

    const referencesByStore = new Map(keys.map((key) => [key, new Set<string>()]))
    for (const order of stored) referencesByStore.get(order.storeKey)?.add(order.referenceId)
    for (const snapshot of listed) {
      for (const order of snapshot.orders) {
        referencesByStore.get(snapshot.storeKey)?.add(ReferenceId.keyOf(snapshot.storeKey, order.storeOrderId))
      }
    }
    const pod = yield* readPod(period.from, new Map([...referencesByStore].map(([key, set]) => [key, [...set].sort()])))

    // POD records of orders outside the report's set (an old order drafted again, say): their stored history too.
    const known = new Set(stored.map((o) => o.referenceId))
    const podReferences = [...pod.drafts, ...pod.orders].map((r) => r.reference_id ?? "").filter((r) => r !== "" && !known.has(r))
    const more = podReferences.length === 0 ? [] : (yield* repo.byReferences(podReferences)).filter((o) => keys.includes(o.storeKey))
    const orders: ReadonlyArray<ReportOrder> = [...stored, ...more]

    // Store orders the listing did not return but the checks need: those with a live POD order, and those only the POD service names.
    const ourReferences = new Set(orders.map((o) => o.referenceId))
    const needStore = [
      ...pod.orders.filter(isActiveOrder).map((o) => o.reference_id ?? ""),
      ...pod.drafts.filter(isActiveDraft).map((d) => d.reference_id ?? "").filter((r) => !ourReferences.has(r))
    ].flatMap((reference) => Option.toArray(ReferenceId.parse(reference)))
    const storeSnapshots = yield* Effect.forEach(listed, (snapshot) => {
      const listedIds = new Set(snapshot.orders.map((o) => o.storeOrderId))
      const wanted = needStore.filter((r) => r.storeKey === snapshot.storeKey && !listedIds.has(r.storeOrderId)).map((r) => r.storeOrderId)
      return readStoreOrders(snapshot, [...new Set(wanted)].sort())
    }, { concurrency: 2 })

    return {
      period,
      generatedAt,
      stores: options.stores,
      store: options.store,
      configuredStoreKeys: options.configuredStoreKeys,
      settings: options.settings,
      orders,
      pod,
      storeSnapshots,
      failedAlerts: yield* failedAlerts
    } satisfies ReportInput
  }).pipe(Effect.withSpan("reports.gather"))
