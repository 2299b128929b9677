/**
 * The POD API v3 client: every operation of the spec plus the real service's
 * `filter.reference_ids`, draft approval and `auto_approve`
 * (ARCHITECTURE.md, "Facts about the real POD service").
 *
 * Every method takes optional `PodCallOptions` ({ lane, storeKey, timeoutMs })
 * and fails with a `PodError` whose `ambiguous` flag says whether the service
 * may have acted (see PodErrors.ts). Every request passes through the
 * `PodRequestGate` (the rate budget). List operations come as one page
 * (`listX`) and as a Stream over all pages (`streamX`).
 *
 * Layer: `PodClient.Default(config)` needs an `HttpClient` (NodeHttpClient)
 * and a `PodRequestGate`.
 */
import { Effect, type Redacted, type Schema, Stream } from "effect"
import { defaultTimeoutMs, makePodHttp, type PodCallOptions, type PodOperation } from "./PodHttp.js"
import type { PodError } from "./PodErrors.js"
import { listQueryParams, streamAllPages } from "./PodPaging.js"
import type { PodLane } from "./PodRequestGate.js"
import { CatalogListResponse, CatalogVariantListResponse, type CatalogQuery, type CatalogVariantQuery } from "./schemas/Catalog.js"
import type { Paging, PagingQuery, PodPage } from "./schemas/Common.js"
import { type EconomyCoverage, EconomyCoverageRequest, EconomyCoverageResponse } from "./schemas/Coverage.js"
import {
  CreateDraftBody,
  CreateLabeledDraftBody,
  PatchDraftLineItemsInput,
  type CreateDraftInput,
  type CreateLabeledDraftInput
} from "./schemas/DraftRequests.js"
import {
  ApproveDraftResponse,
  type CreatedDraft,
  CreatedDraftResponse,
  DraftListResponse,
  DraftResponse,
  type DraftSummary,
  DraftSummaryListResponse,
  DraftSummaryResponse,
  PatchLineItemsResponse,
  type Draft,
  type DraftQuery
} from "./schemas/Drafts.js"
import {
  OrderListResponse,
  type OrderProgress,
  OrderProgressListResponse,
  OrderResponse,
  type Order,
  type OrderQuery
} from "./schemas/Orders.js"
import { PriceQuoteInput, PriceQuoteResponse, type PriceQuote } from "./schemas/Price.js"
import { CreateWebhookInput, WebhookListResponse, WebhookResponse, type Webhook, type WebhookQuery } from "./schemas/Webhooks.js"

export type { PodCallOptions } from "./PodHttp.js"

/** Header names of the real service (ARCHITECTURE.md); the spec's generic form is X-Service-Client-Key/-Secret. */
export const DEFAULT_AUTH_HEADERS = { key: "X-Gearment-Client-Key", secret: "X-Gearment-Client-Secret" } as const

export interface PodClientConfig {
  readonly baseUrl: string
  readonly clientKey: Redacted.Redacted<string>
  readonly clientSecret: Redacted.Redacted<string>
  readonly authHeaders: { readonly key: string; readonly secret: string }
  /** Per-request timeout (default 30 s); a timeout on a mutation is ambiguous. */
  readonly timeoutMs?: number
  /** Fail on response fields the spec does not name. For the conformance test only. */
  readonly strictDecoding?: boolean
}

/** Lookup options: the service's `filter.reference_ids`, narrowed further by creation time. */
export interface ReferenceLookupOptions extends PodCallOptions {
  readonly createdAtMin?: string
}

const seg = (id: string): string => encodeURIComponent(id)

/** Reference ids one look-up call asks for (`filter.reference_ids`): the service pages its answer at 100. */
export const LOOK_UP_BATCH = 100

/** The query of a look-up by reference id, which both drafts and orders accept. */
type ReferenceQuery = { readonly filter: { readonly reference_ids: ReadonlyArray<string>; readonly created_at_min?: string } }

export class PodClient extends Effect.Service<PodClient>()("podsync/PodClient", {
  effect: (config: PodClientConfig) =>
    Effect.gen(function*() {
      const http = yield* makePodHttp({
        baseUrl: config.baseUrl,
        authHeaders: [
          [config.authHeaders.key, config.clientKey],
          [config.authHeaders.secret, config.clientSecret]
        ],
        timeoutMs: config.timeoutMs ?? defaultTimeoutMs,
        strictDecoding: config.strictDecoding ?? false
      })

      type ListQuery = { readonly filter?: object; readonly paging?: PagingQuery }
      type ListEnvelope = { readonly data: ReadonlyArray<unknown>; readonly paging?: Paging }
      /** A call whose answer is an envelope: its `data`, on the normal lane unless the options say otherwise. */
      const dataOf = <A extends { readonly data?: unknown }, I>(
        op: Omit<PodOperation<A, I>, "defaultLane">,
        options?: PodCallOptions
      ): Effect.Effect<A["data"], PodError> =>
        http.run({ ...op, defaultLane: "normal" }, options).pipe(Effect.map((envelope) => envelope.data))

      const lister = <Q extends ListQuery>() =>
      <Env extends ListEnvelope, I>(
        operation: string,
        path: string,
        response: Schema.Schema<Env, I>,
        defaultLane: PodLane,
        partial = false
      ) =>
      (query?: Q, options?: PodCallOptions): Effect.Effect<PodPage<Env["data"][number]>, PodError> =>
        http
          .run(
            {
              operation,
              kind: "read",
              method: "GET",
              path,
              response,
              defaultLane,
              partial,
              urlParams: listQueryParams(query ?? {})
            },
            options
          )
          .pipe(Effect.map((envelope) => ({ data: envelope.data, paging: envelope.paging })))

      const streamer =
        <Q extends ListQuery, A>(list: (query?: Q, options?: PodCallOptions) => Effect.Effect<PodPage<A>, PodError>) =>
        (query?: Q, options?: PodCallOptions): Stream.Stream<A, PodError> => streamAllPages(query ?? ({} as Q), (q) => list(q, options))

      const listCatalog = lister<CatalogQuery>()(
        "catalog.list",
        "/api/v3/catalog",
        CatalogListResponse,
        "background"
      )
      const listCatalogVariants = lister<CatalogVariantQuery>()(
        "catalog.variants",
        "/api/v3/catalog/variants",
        CatalogVariantListResponse,
        "background"
      )
      const listVariantStock = lister<CatalogVariantQuery>()(
        "catalog.stock",
        "/api/v3/catalog/variants/stock",
        CatalogVariantListResponse,
        "background"
      )
      const listWebhooks = lister<WebhookQuery>()(
        "webhooks.list",
        "/api/v3/webhooks",
        WebhookListResponse,
        "normal"
      )
      const listOrders = lister<OrderQuery>()(
        "orders.list",
        "/api/v3/orders",
        OrderListResponse,
        "normal"
      )
      /** Like `listOrders`, with only what following an order needs decoded (`OrderProgress`). */
      const listOrderProgress = lister<OrderQuery>()(
        "orders.list",
        "/api/v3/orders",
        OrderProgressListResponse,
        "normal",
        true
      )
      const listDrafts = lister<DraftQuery>()(
        "drafts.list",
        "/api/v3/orders/draft",
        DraftListResponse,
        "normal"
      )

      type Created<A> = { readonly data: A; readonly warnings?: ReadonlyArray<string> }
      /** The create answer is the short draft plus `warnings[]`, kept on the result (empty when none). */
      const postDraft = <A, I>(
        input: CreateDraftInput,
        response: Schema.Schema<Created<A>, I>,
        partial: boolean,
        options?: PodCallOptions
      ) => {
        const ctx = { operation: "drafts.create", method: "POST", path: "/api/v3/orders/draft" } as const
        return http.encodeBody(CreateDraftBody, { data: input }, ctx).pipe(
          Effect.flatMap((body) => http.run({ ...ctx, kind: "mutation", body, response, partial, defaultLane: "normal" }, options)),
          Effect.map((envelope) => ({ ...envelope.data, warnings: envelope.warnings ?? [] }))
        )
      }

      const createDraft = (input: CreateDraftInput, options?: PodCallOptions): Effect.Effect<CreatedDraft, PodError> =>
        postDraft(input, CreatedDraftResponse, false, options)

      /** Like `createDraft`, answering only what the pipeline keeps of the new draft (`DraftSummary`, and any shipping substitution). */
      const createDraftSummary = (input: CreateDraftInput, options?: PodCallOptions): Effect.Effect<DraftSummary, PodError> =>
        postDraft(input, DraftSummaryResponse, true, options)

      /**
       * Whether the Economy carrier serves each US ZIP (1 to 100 a call; a ZIP+4 is matched on its first
       * five). A POST that changes nothing: a read, never ambiguous. A covered ZIP means "not excluded by
       * carrier coverage", not "guaranteed Economy" (weight and marketplace are checked on the order).
       */
      const checkEconomyCoverage = (
        zipCodes: ReadonlyArray<string>,
        options?: PodCallOptions
      ): Effect.Effect<EconomyCoverage, PodError> => {
        const ctx = { operation: "shipping.economyCoverage", method: "POST", path: "/api/v3/shipping/economy/coverage/check" } as const
        return http.encodeBody(EconomyCoverageRequest, { zip_codes: zipCodes }, ctx).pipe(
          Effect.flatMap((body) => dataOf({ ...ctx, kind: "read", body, response: EconomyCoverageResponse }, options))
        )
      }

      const createLabeledDraft = (
        input: CreateLabeledDraftInput,
        options?: PodCallOptions
      ): Effect.Effect<CreatedDraft, PodError> => {
        const ctx = { operation: "drafts.createLabeled", method: "POST", path: "/api/v3/orders/draft/labeled" } as const
        return http.encodeBody(CreateLabeledDraftBody, { data: input }, ctx).pipe(
          Effect.flatMap((body) =>
            http.run({ ...ctx, kind: "mutation", body, response: CreatedDraftResponse, defaultLane: "normal" }, options)
          ),
          Effect.map((envelope) => ({ ...envelope.data, warnings: envelope.warnings ?? [] }))
        )
      }

      /** Updates quantity, designs and printing options of a draft's lines; answers the draft id. */
      const patchDraftLineItems = (
        input: typeof PatchDraftLineItemsInput.Type,
        options?: PodCallOptions
      ): Effect.Effect<{ readonly order_id: string }, PodError> => {
        const ctx = { operation: "drafts.patchLineItems", method: "PATCH", path: "/api/v3/orders/draft/line-items" } as const
        return http.encodeBody(PatchDraftLineItemsInput, input, ctx).pipe(
          Effect.flatMap((body) => dataOf({ ...ctx, kind: "mutation", body, response: PatchLineItemsResponse }, options))
        )
      }

      /**
       * Approves a draft created with `auto_approve: false`. The service answers
       * `{ status, is_approved, message }`; the draft too when it sends one.
       */
      const approveDraft = (orderId: string, options?: PodCallOptions): Effect.Effect<Draft | undefined, PodError> =>
        dataOf(
          {
            operation: "drafts.approve",
            kind: "mutation",
            method: "POST",
            path: `/api/v3/orders/draft/${seg(orderId)}/approve`,
            body: { order_id: orderId },
            response: ApproveDraftResponse
          },
          options
        )

      const getDraft = (orderId: string, options?: PodCallOptions): Effect.Effect<Draft, PodError> =>
        dataOf({
          operation: "drafts.get",
          kind: "read",
          method: "GET",
          path: `/api/v3/orders/draft/${seg(orderId)}`,
          response: DraftResponse
        }, options)

      const getOrder = (orderId: string, options?: PodCallOptions): Effect.Effect<Order, PodError> =>
        dataOf(
          { operation: "orders.get", kind: "read", method: "GET", path: `/api/v3/orders/${seg(orderId)}`, response: OrderResponse },
          options
        )

      /** A price quote is a POST but changes nothing: never ambiguous. */
      const quotePrice = (input: PriceQuoteInput, options?: PodCallOptions): Effect.Effect<PriceQuote, PodError> => {
        const ctx = { operation: "orders.price", method: "POST", path: "/api/v3/orders/price" } as const
        return http.encodeBody(PriceQuoteInput, input, ctx).pipe(
          Effect.flatMap((body) => dataOf({ ...ctx, kind: "read", body, response: PriceQuoteResponse }, options))
        )
      }

      const createWebhook = (input: CreateWebhookInput, options?: PodCallOptions): Effect.Effect<Webhook, PodError> => {
        const ctx = { operation: "webhooks.create", method: "POST", path: "/api/v3/webhooks" } as const
        return http.encodeBody(CreateWebhookInput, input, ctx).pipe(
          Effect.flatMap((body) => dataOf({ ...ctx, kind: "mutation", body, response: WebhookResponse }, options))
        )
      }

      /** Deleting twice answers not-found the second time, so a lost answer is ambiguous like a create. */
      const deleteWebhook = (webhookId: string, options?: PodCallOptions): Effect.Effect<Webhook, PodError> =>
        dataOf(
          {
            operation: "webhooks.delete",
            kind: "mutation",
            method: "DELETE",
            path: `/api/v3/webhooks/${seg(webhookId)}`,
            response: WebhookResponse
          },
          options
        )

      /**
       * The look-ups before a first draft (`lookUpByReferenceIds`) go by operations of their own, so
       * that metrics and the bench tell them from reconciliation's lists; same paths, same answers.
       */
      const lookUpDrafts = lister<DraftQuery>()(
        "drafts.lookUp",
        "/api/v3/orders/draft",
        DraftSummaryListResponse,
        "normal",
        true
      )
      const lookUpOrders = lister<OrderQuery>()(
        "orders.lookUp",
        "/api/v3/orders",
        OrderProgressListResponse,
        "normal",
        true
      )

      const streamDrafts = streamer(listDrafts)
      const streamOrders = streamer(listOrders)
      const streamOrderProgress = streamer(listOrderProgress)

      /**
       * The records of `stream` whose `reference_id` is `referenceId` (the idempotency look-up).
       * Uses `filter.reference_ids` and re-checks each result, so a service that
       * ignored the filter still gives the right answer (by scanning). The
       * service does not deduplicate: more than one record means an earlier
       * duplicate, which the caller must report.
       */
      const findByReferenceId = <A extends { readonly reference_id?: string | undefined }>(
        stream: (query: ReferenceQuery, options?: PodCallOptions) => Stream.Stream<A, PodError>
      ) =>
      (referenceId: string, options?: ReferenceLookupOptions) =>
        Stream.runCollect(
          stream(
            {
              filter: {
                reference_ids: [referenceId],
                ...(options?.createdAtMin === undefined ? {} : { created_at_min: options.createdAtMin })
              }
            },
            options
          ).pipe(Stream.filter((record) => record.reference_id === referenceId))
        ).pipe(Effect.map((chunk): ReadonlyArray<A> => Array.from(chunk)))

      /** Drafts whose `reference_id` is `referenceId`. */
      const findDraftsByReferenceId = findByReferenceId(streamDrafts)
      /** Orders whose `reference_id` is `referenceId`. */
      const findOrdersByReferenceId = findByReferenceId(streamOrders)

      /**
       * The drafts and the orders of up to LOOK_UP_BATCH reference ids, two calls (more only when an
       * answer runs over a page): what the service already holds of orders this database never
       * drafted. Each result is re-checked against the ids asked for, like `findByReferenceId`.
       */
      const lookUpByReferenceIds = (
        referenceIds: ReadonlyArray<string>,
        options?: PodCallOptions
      ): Effect.Effect<
        { readonly drafts: ReadonlyArray<DraftSummary>; readonly orders: ReadonlyArray<OrderProgress> },
        PodError
      > => {
        const asked = new Set(referenceIds)
        if (asked.size === 0) return Effect.succeed({ drafts: [], orders: [] })
        if (asked.size > LOOK_UP_BATCH) {
          return Effect.dieMessage(`a look-up asks for at most ${LOOK_UP_BATCH} reference ids, not ${asked.size}`)
        }
        const query = { filter: { reference_ids: [...asked] }, paging: { limit: LOOK_UP_BATCH } }
        const collect = <A extends { readonly reference_id?: string | undefined }>(stream: Stream.Stream<A, PodError>) =>
          Stream.runCollect(stream.pipe(Stream.filter((r) => r.reference_id !== undefined && asked.has(r.reference_id)))).pipe(
            Effect.map((chunk): ReadonlyArray<A> => Array.from(chunk))
          )
        return Effect.all({
          drafts: collect(streamer(lookUpDrafts)(query, options)),
          orders: collect(streamer(lookUpOrders)(query, options))
        }, { concurrency: 2 })
      }

      return {
        lookUpByReferenceIds,
        listCatalog,
        streamCatalog: streamer(listCatalog),
        listCatalogVariants,
        streamCatalogVariants: streamer(listCatalogVariants),
        listVariantStock,
        streamVariantStock: streamer(listVariantStock),
        listWebhooks,
        streamWebhooks: streamer(listWebhooks),
        createWebhook,
        deleteWebhook,
        listOrders,
        streamOrders,
        listOrderProgress,
        streamOrderProgress,
        getOrder,
        findOrdersByReferenceId,
        quotePrice,
        checkEconomyCoverage,
        listDrafts,
        streamDrafts,
        getDraft,
        findDraftsByReferenceId,
        createDraft,
        createDraftSummary,
        createLabeledDraft,
        patchDraftLineItems,
        approveDraft
      } as const
    })
}) {}
