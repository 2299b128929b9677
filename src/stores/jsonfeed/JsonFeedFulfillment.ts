/**
 * Fulfilment push (docs/jsonfeed.md §6–§7): read the order's fulfilments and
 * the order back, plan (pure, JsonFeedFulfillmentPlan.ts), then
 * `POST <base>/orders/{id}/fulfillments` with the package's Idempotency-Key.
 *
 * Every push reads back first, not only after a doubt, so a retry after an
 * ambiguous failure (timeout, reset, 5xx) is just a second call. A 409
 * `idempotency_key_in_use` (another attempt is still running) is itself
 * ambiguous: the caller reads back later. A 422 that says the order changed
 * under us (units gone, a hold placed) is planned again once, from a fresh read.
 */
import { Effect, Option } from "effect"
import type { FulfillmentLine, FulfillmentOutcome, FulfillmentPush } from "../../domain/StoreTypes.js"
import { type StoreError, StoreUnavailableError } from "../StoreErrors.js"
import { orderPath } from "./JsonFeedConfig.js"
import { errorOf, type FeedAnswer, type JsonFeedHttp, readJson, refusal } from "./JsonFeedHttp.js"
import { idempotencyKeyFor, planPush, type PushPlan } from "./JsonFeedFulfillmentPlan.js"
import type { JsonFeedOrderReader } from "./JsonFeedOrders.js"
import { JsonFeedFulfillment } from "./JsonFeedSchemas.js"

export interface FulfillmentSettings {
  readonly storeKey: string
  readonly notifyCustomer: boolean
}

/** 422 codes meaning the order changed since we read it: read again and plan again. */
const STALE_READ = new Set(["quantity_exceeds_fulfillable", "order_on_hold"])

type PostResult =
  | { readonly _tag: "Outcome"; readonly outcome: FulfillmentOutcome }
  | { readonly _tag: "Replan"; readonly messages: ReadonlyArray<string> }

export const makeJsonFeedFulfillmentPush = (settings: FulfillmentSettings, http: JsonFeedHttp, reader: JsonFeedOrderReader) => {
  const { storeKey } = settings

  const plan = (push: FulfillmentPush, idempotencyKey: string): Effect.Effect<PushPlan, StoreError> =>
    Effect.gen(function*() {
      const fulfillments = yield* reader.fulfillments(push.storeOrderId)
      if (Option.isNone(fulfillments)) {
        return {
          _tag: "Decided",
          outcome: { _tag: "Rejected", reason: "unknown_order", messages: [`order ${push.storeOrderId} does not exist`] }
        } as const
      }
      const order = yield* reader.byId(push.storeOrderId)
      return planPush({ fulfillments: fulfillments.value, order: Option.getOrNull(order), idempotencyKey }, push)
    })

  const interpret = (
    answer: FeedAnswer,
    lines: ReadonlyArray<FulfillmentLine>,
    notify: boolean,
    trackingOnly: boolean
  ): Effect.Effect<PostResult, StoreError> =>
    Effect.gen(function*() {
      const request = { operation: "fulfillmentCreate", write: true } as const
      const outcome = (value: FulfillmentOutcome) => ({ _tag: "Outcome", outcome: value }) as const
      if (answer.status === 201 || answer.status === 200) {
        const created = yield* readJson(storeKey, request, answer, JsonFeedFulfillment)
        // 200: the storefront knew this Idempotency-Key; an earlier attempt created it.
        return answer.status === 200
          ? outcome({ _tag: "AlreadyPushed", fulfillmentIds: [created.id] })
          : trackingOnly
          ? outcome({ _tag: "TrackingAdded", fulfillmentIds: [created.id], notifiedCustomer: created.notify_customer ?? notify })
          : outcome({
            _tag: "Created",
            fulfillmentIds: [created.id],
            lines: [...lines],
            notifiedCustomer: created.notify_customer ?? notify
          })
      }
      const error = errorOf(answer)
      const messages = [error?.message ?? `HTTP ${answer.status}`]
      if (answer.status === 404) return outcome({ _tag: "Rejected", reason: "unknown_order", messages })
      if (answer.status === 409 && error?.code === "idempotency_key_in_use") {
        return yield* new StoreUnavailableError({
          storeKey,
          operation: request.operation,
          ambiguous: true,
          status: 409,
          detail: "another attempt of this fulfilment is still running at the storefront"
        })
      }
      // A storefront on the contract before §6.5 refuses a package without lines: the buyer cannot be shown it there.
      if (trackingOnly && (answer.status === 400 || answer.status === 422)) {
        return outcome({
          _tag: "Rejected",
          reason: "tracking_only_refused",
          messages: [
            `the storefront refused a further package of lines already fulfilled (docs/jsonfeed.md §6.5): ${messages.join("; ")}`
          ]
        })
      }
      if (answer.status === 422 && error !== undefined) {
        if (STALE_READ.has(error.code)) return { _tag: "Replan", messages } as const
        const reason = error.code === "unknown_line" ? "unknown_lines" : error.code
        return outcome({ _tag: "Rejected", reason, messages })
      }
      return yield* refusal(storeKey, request.operation, answer)
    })

  const attempt = (push: FulfillmentPush, idempotencyKey: string, replansLeft: number): Effect.Effect<FulfillmentOutcome, StoreError> =>
    Effect.gen(function*() {
      const planned = yield* plan(push, idempotencyKey)
      if (planned._tag === "Decided") return planned.outcome
      const notify = push.notifyCustomer ?? settings.notifyCustomer
      const answer = yield* http.send({
        operation: "fulfillmentCreate",
        method: "POST",
        path: orderPath(push.storeOrderId, "/fulfillments"),
        idempotencyKey,
        json: {
          lines: planned.lines.map((line) => ({ line_id: line.lineId, quantity: line.quantity })),
          tracking: { company: push.tracking.company, number: push.tracking.number, url: push.tracking.url ?? null },
          notify_customer: notify
        },
        write: true
      })
      const result = yield* interpret(answer, planned.lines, notify, planned.trackingOnly === true)
      if (result._tag === "Outcome") return result.outcome
      return replansLeft > 0
        ? yield* attempt(push, idempotencyKey, replansLeft - 1)
        : ({ _tag: "Rejected", reason: "order_changed", messages: [...result.messages] } as const)
    })

  return (push: FulfillmentPush): Effect.Effect<FulfillmentOutcome, StoreError> => attempt(push, idempotencyKeyFor(storeKey, push), 1)
}
