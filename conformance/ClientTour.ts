/**
 * Every method of the real `PodClient` layer, called against the POD
 * simulator through the recording proxy, so each request the client can send
 * is seen on the wire. The client's methods are listed at run time from the
 * client itself: a method added later without a step here shows up as "not
 * driven", and the run fails until a step is written for it.
 *
 * A few steps ask for what is not there (a missing draft or order, a wrong
 * secret) so that error answers are judged too; they expect the client's
 * matching error.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, ManagedRuntime, Redacted, Stream } from "effect"
import * as Money from "../src/domain/Money.js"
import { DEFAULT_AUTH_HEADERS, PodClient } from "../src/pod/PodClient.js"
import { PodRequestGate } from "../src/pod/PodRequestGate.js"
import type { CreateDraftInput } from "../src/pod/schemas/DraftRequests.js"
import type { RecordingProxy } from "./RecordingProxy.js"

export interface StepOutcome {
  readonly label: string
  readonly method: string
  readonly ok: boolean
  /** What went wrong: a client error (tag and message), or a deliberate error that did not come. */
  readonly error?: string
  /** The client's own operation names (`http.run`'s `operation`) the step sent, in order. */
  readonly clientOperations: ReadonlyArray<string>
}

export interface TourResult {
  /** Every method the client exposes. */
  readonly methods: ReadonlyArray<string>
  readonly outcomes: ReadonlyArray<StepOutcome>
}

export const SIM_CLIENT_KEY = "sim-client-key"
export const SIM_CLIENT_SECRET = "sim-client-secret"

interface TourState {
  readonly createdAtMin: string
  variantIds: ReadonlyArray<string>
  draftId: string
  lineItemId: string
  orderId: string
  webhookId: string
}

interface Step {
  readonly method: keyof PodClient & string
  readonly note?: string
  /** The client error `_tag` the step asks for. */
  readonly expect?: string
  readonly credentials?: "wrong secret"
  readonly run: (client: PodClient, state: TourState, simUrl: string) => Effect.Effect<unknown, unknown>
}

const DRAFT_REF = "conformance:draft"
const ORDER_REF = "conformance:order"
const NOTHING_REF = "conformance:nothing"
const MISSING_ID = "conformance-missing"

const draft = (variantId: string, referenceId: string, extra: Partial<CreateDraftInput> = {}): CreateDraftInput => ({
  reference_id: referenceId,
  platform: "MARKETPLACE_PLATFORM_SHOPIFY",
  store_id: "store-1",
  address: {
    first_name: "Ada",
    last_name: "Lovelace",
    street_1: "12 Analytical Way",
    city: "Los Angeles",
    state_code: "CA",
    zip_code: "90012",
    country_code: "US",
    phone_no: "+1 (213) 555-0100"
  },
  shipping_method: "METHOD_STANDARD",
  line_items: [{
    variant_id: variantId,
    quantity: 2,
    printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://designs.example.com/front.png" }]
  }],
  ...extra
})

const fullDraft = (variantId: string, referenceId: string) =>
  draft(variantId, referenceId, {
    gift_message_body: "Happy birthday",
    billing_option: {
      ioss_number: "IM0000000001",
      ioss_value: Either.getOrThrow(Money.make("EUR", 20, 0)),
      tax_number: "DE123",
      tax_value: Either.getOrThrow(Money.make("EUR", 3, 800_000_000))
    },
    auto_approve: false
  })

/** Two pages of a stream, small pages: shows `paging.page` beyond 1 without reading everything. */
const twoPages = <A, E>(stream: Stream.Stream<A, E>) => Stream.runCollect(Stream.take(stream, 3))
const small = { paging: { limit: 2 } } as const

const simAdmin = (simUrl: string, path: string) =>
  Effect.tryPromise(async () => {
    const response = await fetch(`${simUrl}/__sim${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paid: true }),
      signal: AbortSignal.timeout(10_000)
    })
    if (!response.ok) throw new Error(`simulator admin ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as { readonly order_id?: string }
  })

const steps: ReadonlyArray<Step> = [
  { method: "listCatalog", run: (c) => c.listCatalog({ paging: { limit: 5, page: 1 } }) },
  { method: "streamCatalog", run: (c) => twoPages(c.streamCatalog(small)) },
  {
    method: "listCatalogVariants",
    run: (c, s) =>
      c.listCatalogVariants({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] }, paging: { limit: 3 } }).pipe(
        Effect.tap((page) => {
          s.variantIds = page.data.map((v) => v.variant_id)
        })
      )
  },
  { method: "streamCatalogVariants", run: (c) => twoPages(c.streamCatalogVariants(small)) },
  { method: "listVariantStock", run: (c, s) => c.listVariantStock({ filter: { variant_ids: s.variantIds.slice(0, 2) } }) },
  { method: "streamVariantStock", run: (c) => twoPages(c.streamVariantStock(small)) },
  {
    method: "quotePrice",
    run: (c, s) =>
      c.quotePrice({
        order_platform: "",
        billing: { ioss_number: "IM1", tax_number: "T1" },
        shipping: { address: { method: "ground", state_code: "CA", country_code: "US" }, label: { url: "https://l.example.com/x.pdf" } },
        line_items: [{ variant_id: s.variantIds[0] ?? "", quantity: 2, print_locations: ["front", "back"] }],
        gift_messages: [{ gift_message_id: "g1", content: "Hi" }]
      })
  },
  { method: "checkEconomyCoverage", run: (c) => c.checkEconomyCoverage(["90001", "99501", "10001-1234"]) },
  {
    method: "createDraft",
    note: "unapproved, with billing and a gift message",
    run: (c, s) =>
      c.createDraft(fullDraft(s.variantIds[0] ?? "", DRAFT_REF)).pipe(Effect.tap((d) => {
        s.draftId = d.order_id
        s.lineItemId = d.line_items?.[0]?.line_item_id ?? ""
      }))
  },
  {
    method: "createDraft",
    note: "approved, then checked out and shipped by the simulator",
    run: (c, s, simUrl) =>
      c.createDraft(draft(s.variantIds[1] ?? s.variantIds[0] ?? "", ORDER_REF)).pipe(
        Effect.flatMap((d) => simAdmin(simUrl, `/drafts/${encodeURIComponent(d.order_id)}/checkout`)),
        Effect.tap((checkedOut) => {
          s.orderId = checkedOut.order_id ?? ""
        }),
        Effect.flatMap(() => simAdmin(simUrl, `/orders/${encodeURIComponent(s.orderId)}/ship`))
      )
  },
  { method: "createDraftSummary", run: (c, s) => c.createDraftSummary(draft(s.variantIds[0] ?? "", "conformance:summary")) },
  {
    method: "createLabeledDraft",
    run: (c, s) => {
      const { address: _a, shipping_method: _m, ...rest } = draft(s.variantIds[0] ?? "", "conformance:labeled")
      return c.createLabeledDraft({ ...rest, shipping_label_urls: ["https://labels.example.com/1.pdf"] })
    }
  },
  { method: "getDraft", run: (c, s) => c.getDraft(s.draftId) },
  { method: "getDraft", note: "missing", expect: "PodNotFoundError", run: (c) => c.getDraft(MISSING_ID) },
  {
    method: "listDrafts",
    run: (c, s) => c.listDrafts({ filter: { reference_ids: [DRAFT_REF], created_at_min: s.createdAtMin }, paging: { limit: 10 } })
  },
  { method: "streamDrafts", run: (c) => twoPages(c.streamDrafts(small)) },
  { method: "findDraftsByReferenceId", run: (c) => c.findDraftsByReferenceId(DRAFT_REF) },
  {
    method: "findDraftsByReferenceId",
    note: "finds nothing",
    run: (c, s) => c.findDraftsByReferenceId(NOTHING_REF, { createdAtMin: s.createdAtMin })
  },
  {
    method: "patchDraftLineItems",
    run: (c, s) =>
      c.patchDraftLineItems({
        order_id: s.draftId,
        line_items: [{
          line_item_id: s.lineItemId,
          variant_id: s.variantIds[0] ?? "",
          quantity: 3,
          printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://designs.example.com/2.png" }]
        }]
      })
  },
  { method: "approveDraft", run: (c, s) => c.approveDraft(s.draftId) },
  { method: "getOrder", run: (c, s) => c.getOrder(s.orderId) },
  { method: "getOrder", note: "missing", expect: "PodNotFoundError", run: (c) => c.getOrder(MISSING_ID) },
  {
    method: "listOrders",
    run: (c, s) => c.listOrders({ filter: { order_ids: [s.orderId, MISSING_ID], created_at_min: s.createdAtMin }, paging: { limit: 10 } })
  },
  { method: "streamOrders", run: (c) => twoPages(c.streamOrders(small)) },
  { method: "listOrderProgress", run: (c, s) => c.listOrderProgress({ filter: { order_ids: [s.orderId] } }) },
  { method: "streamOrderProgress", run: (c) => twoPages(c.streamOrderProgress(small)) },
  { method: "findOrdersByReferenceId", run: (c, s) => c.findOrdersByReferenceId(ORDER_REF, { createdAtMin: s.createdAtMin }) },
  {
    method: "lookUpByReferenceIds",
    note: "a draft, an order and nothing, in one call of each kind",
    run: (c) => c.lookUpByReferenceIds([DRAFT_REF, ORDER_REF, NOTHING_REF])
  },
  { method: "findOrdersByReferenceId", note: "finds nothing", run: (c) => c.findOrdersByReferenceId(NOTHING_REF) },
  {
    method: "createWebhook",
    run: (c, s) =>
      c.createWebhook({
        status: "STATUS_ACTIVE",
        topic: "TOPIC_ORDER_ON_HOLD",
        version: "VERSION_V3",
        name: "conformance",
        delivery_url: "https://conformance.example.com/hook",
        store_id: "store-1"
      }).pipe(Effect.tap((hook) => {
        s.webhookId = hook.webhook_id
      }))
  },
  {
    method: "listWebhooks",
    run: (c) => c.listWebhooks({ filter: { statuses: ["STATUS_ACTIVE"], topics: ["TOPIC_ORDER_ON_HOLD", "TOPIC_ORDER_COMPLETED"] } })
  },
  {
    method: "listWebhooks",
    note: "wrong secret",
    expect: "PodUnauthorizedError",
    credentials: "wrong secret",
    run: (c) => c.listWebhooks()
  },
  { method: "streamWebhooks", run: (c) => twoPages(c.streamWebhooks(small)) },
  { method: "deleteWebhook", run: (c, s) => c.deleteWebhook(s.webhookId) }
]

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : "Error"

const describeError = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const issue = typeof error === "object" && error !== null && "issue" in error ? `: ${String(error.issue)}` : ""
  return `${tagOf(error)} ${message}${issue}`.slice(0, 600)
}

export const stepLabel = (step: { readonly method: string; readonly note?: string }) =>
  step.note === undefined ? step.method : `${step.method} (${step.note})`

/** Runs every step in order through `proxy` (which fronts the simulator at `simUrl`). */
export const tourClient = async (proxy: RecordingProxy, simUrl: string): Promise<TourResult> => {
  const sent: Array<string> = []
  const gate = Layer.succeed(PodRequestGate, {
    around: (info, send) => Effect.zipRight(Effect.sync(() => sent.push(info.operation)), send),
    report: () => Effect.void
  })
  const runtimeFor = (secret: string) =>
    ManagedRuntime.make(
      PodClient.Default({
        baseUrl: proxy.url,
        clientKey: Redacted.make(SIM_CLIENT_KEY),
        clientSecret: Redacted.make(secret),
        authHeaders: DEFAULT_AUTH_HEADERS,
        timeoutMs: 10_000
      }).pipe(Layer.provide(NodeHttpClient.layer), Layer.provide(gate))
    )
  const right = runtimeFor(SIM_CLIENT_SECRET)
  const wrong = runtimeFor("not-the-secret")
  try {
    const client = await right.runPromise(PodClient)
    const wrongClient = await wrong.runPromise(PodClient)
    const methods = Object.entries(client).filter(([, value]) => typeof value === "function").map(([name]) => name)
    const state: TourState = {
      createdAtMin: new Date(Date.now() - 3_600_000).toISOString(),
      variantIds: [],
      draftId: "",
      lineItemId: "",
      orderId: "",
      webhookId: ""
    }
    const outcomes: Array<StepOutcome> = []
    for (const step of steps) {
      const label = stepLabel(step)
      proxy.label(label)
      sent.length = 0
      const result = await Effect.runPromise(
        Effect.either(step.run(step.credentials === undefined ? client : wrongClient, state, simUrl).pipe(Effect.timeout("30 seconds")))
      )
      const ok = step.expect === undefined ? Either.isRight(result) : Either.isLeft(result) && tagOf(result.left) === step.expect
      const error = Either.isLeft(result)
        ? describeError(result.left)
        : step.expect === undefined
        ? undefined
        : `expected ${step.expect}, the call succeeded`
      outcomes.push({ label, method: step.method, ok, ...(ok || error === undefined ? {} : { error }), clientOperations: [...sent] })
    }
    return { methods, outcomes }
  } finally {
    proxy.label("after the client tour")
    await Promise.all([right.dispose(), wrong.dispose()])
  }
}
