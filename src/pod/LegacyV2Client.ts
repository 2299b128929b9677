/**
 * The legacy v2 operations of the POD service (compatibility layer), for
 * stores still set up through v2. Credentials travel in the body
 * (`api_key`, `api_signature`; how the signature is computed is not
 * documented, so it is configured as a value). Same gate, timeout, error
 * typing and ambiguity rules as the v3 client (PodHttp.ts).
 *
 * Layer: `LegacyV2Client.Default(config)` needs an `HttpClient` and a `PodRequestGate`.
 */
import { Effect, Redacted, type Schema } from "effect"
import { defaultTimeoutMs, makePodHttp, type PodCallOptions } from "./PodHttp.js"
import type { PodError } from "./PodErrors.js"
import {
  DraftV2Input,
  DraftV2Response,
  LabeledDraftV2Input,
  LineItemsV2Input,
  LineItemsV2Response,
  OrderV2Response,
  PriceV2Input,
  PriceV2Response,
  type OrderV2,
  type PriceV2
} from "./schemas/LegacyV2.js"

export interface LegacyV2ClientConfig {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly apiSignature: Redacted.Redacted<string>
  readonly timeoutMs?: number
  readonly strictDecoding?: boolean
}

export class LegacyV2Client extends Effect.Service<LegacyV2Client>()("podsync/LegacyV2Client", {
  effect: (config: LegacyV2ClientConfig) =>
    Effect.gen(function*() {
      const http = yield* makePodHttp({
        baseUrl: config.baseUrl,
        authHeaders: [],
        timeoutMs: config.timeoutMs ?? defaultTimeoutMs,
        strictDecoding: config.strictDecoding ?? false
      })
      // Read at send time only; the body is never logged nor kept in an error.
      const credentials = () => ({
        api_key: Redacted.value(config.apiKey),
        api_signature: Redacted.value(config.apiSignature)
      })

      const post = <In, InEncoded extends object, A, I>(
        operation: string,
        kind: "read" | "mutation",
        path: string,
        inputSchema: Schema.Schema<In, InEncoded>,
        response: Schema.Schema<A, I>
      ) =>
      (input: In, options?: PodCallOptions): Effect.Effect<A, PodError> => {
        const ctx = { operation, method: "POST", path } as const
        return http.encodeBody(inputSchema, input, ctx).pipe(
          Effect.flatMap((body) =>
            http.run({ ...ctx, kind, body: { ...body, ...credentials() }, response, defaultLane: "normal" }, options)
          )
        )
      }

      const quote = post("v2.orders.price", "read", "/api/v2/orders/price", PriceV2Input, PriceV2Response)
      const draft = post("v2.drafts.create", "mutation", "/api/v2/orders/draft", DraftV2Input, DraftV2Response)
      const labeled = post(
        "v2.drafts.createLabeled",
        "mutation",
        "/api/v2/orders/draft/labeled",
        LabeledDraftV2Input,
        DraftV2Response
      )
      const lines = post(
        "v2.drafts.updateLineItems",
        "mutation",
        "/api/v2/orders/draft/line-items",
        LineItemsV2Input,
        LineItemsV2Response
      )

      /** POST /api/v2/orders/price: amounts as numbers in `currency` (see `legacyAmount`). */
      const quotePrice = (input: PriceV2Input, options?: PodCallOptions): Effect.Effect<PriceV2, PodError> =>
        Effect.map(quote(input, options), (envelope) => envelope.data)

      /** POST /api/v2/orders/draft: the new draft's integer id and display name. */
      const createDraft = (input: DraftV2Input, options?: PodCallOptions) =>
        Effect.map(draft(input, options), (envelope) => envelope.result)

      /** POST /api/v2/orders/draft/labeled. */
      const createLabeledDraft = (input: LabeledDraftV2Input, options?: PodCallOptions) =>
        Effect.map(labeled(input, options), (envelope) => envelope.result)

      /** POST /api/v2/orders/draft/line-items. */
      const updateDraftLineItems = (input: LineItemsV2Input, options?: PodCallOptions) =>
        Effect.map(lines(input, options), (envelope) => envelope.result)

      /** GET /api/v2/orders/{order_id}: the spec puts the credentials in a GET body. */
      const getOrder = (orderId: number | string, options?: PodCallOptions): Effect.Effect<OrderV2, PodError> =>
        http
          .run(
            {
              operation: "v2.orders.get",
              kind: "read",
              method: "GET",
              path: `/api/v2/orders/${encodeURIComponent(String(orderId))}`,
              body: { credentials: credentials(), order_id: orderId },
              response: OrderV2Response,
              defaultLane: "normal"
            },
            options
          )
          .pipe(Effect.map((envelope) => envelope.result))

      return { quotePrice, createDraft, createLabeledDraft, updateDraftLineItems, getOrder } as const
    })
}) {}
