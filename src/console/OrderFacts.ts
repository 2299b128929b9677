/**
 * What an order's page reads besides the order's own rows: the print files of its lines (the store's
 * mapping table) and what the POD service says of its draft and order now. Either may be missing
 * (a process without the mapping store or the POD client); the page then says less, never fails.
 */
import { Effect, Option } from "effect"
import { PodClient } from "../pod/PodClient.js"
import { describePodError } from "../reporting/ReportSources.js"
import { MappingStore } from "../pipeline/MappingStore.js"
import type { StoredOrder } from "../repos/OrdersRepo.js"
import { designsOfLine, type LineDesign, type PodFacts } from "./OrderView.js"

/** A person waits on the page: the read goes in the urgent lane and gives up after this long. */
const POD_READ_MS = 3_000

export const designsOf = (stored: StoredOrder) =>
  Effect.gen(function*() {
    const mappings = yield* Effect.serviceOption(MappingStore)
    if (Option.isNone(mappings)) return new Map<string, ReadonlyArray<LineDesign>>()
    const table = yield* mappings.value.tableFor(stored.storeKey)
    return new Map(stored.order.lines.map((line) => [line.lineId, designsOfLine(table, line)]))
  })

export const podFactsOf = (stored: StoredOrder) =>
  Effect.gen(function*() {
    const client = yield* Effect.serviceOption(PodClient)
    if (Option.isNone(client) || (stored.podDraftId === null && stored.podOrderId === null)) return null
    const options = { lane: "urgent" as const, storeKey: stored.storeKey, timeoutMs: POD_READ_MS }
    const read = Effect.all({
      draft: stored.podDraftId === null ? Effect.succeed(undefined) : client.value.getDraft(stored.podDraftId, options),
      order: stored.podOrderId === null ? Effect.succeed(undefined) : client.value.getOrder(stored.podOrderId, options)
    }, { concurrency: 2 })
    return yield* read.pipe(
      Effect.timeoutFail({ duration: POD_READ_MS + 500, onTimeout: () => "no answer in time" as const }),
      Effect.map(({ draft, order }): PodFacts => ({
        draft: draft === undefined ? undefined : { status: draft.status, total: draft.order_total },
        order: order === undefined
          ? undefined
          : { status: order.order_status, paymentStatus: order.payment_status, total: order.order_total }
      })),
      Effect.catchAll((error) =>
        Effect.as(
          Effect.logWarning("console: the POD service could not be read for an order's page").pipe(
            Effect.annotateLogs({ order: stored.referenceId, error: typeof error === "string" ? error : describePodError(error) })
          ),
          { error: typeof error === "string" ? error : describePodError(error) } satisfies PodFacts
        )
      )
    )
  })
