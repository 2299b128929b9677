// Orders stored in podsync and shipped at the POD simulator, for the follow-up and reconcile tests.
import { Effect } from "effect"
import { PodClient } from "../../src/pod/PodClient.js"
import { storedSampleOrder } from "../support/orders.js"
import { admin, draftInput } from "../pod/podSim.js"

/** A stored order drafted, checked out and shipped at the simulator in one box, `1Z<id>A`. */
export const shippedOrder = (simUrl: string, id: string) =>
  Effect.gen(function*() {
    const { repo, reference, rowId } = yield* storedSampleOrder(id)
    const client = yield* PodClient
    const variant = (yield* client.listCatalogVariants({
      filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] },
      paging: { limit: 1 }
    })).data[0]!
    const draft = yield* client.createDraft(draftInput(variant.variant_id, reference))
    const order = yield* Effect.promise(() =>
      admin<{ order_id: string }>(simUrl, "POST", `/drafts/${draft.order_id}/checkout`, { paid: true })
    )
    yield* repo.transition(rowId, "pulled", "ready", { actor: "t", reason: "matched" })
    yield* repo.transition(rowId, "ready", "drafted", { actor: "t", reason: "drafted", podDraftId: draft.order_id })
    yield* repo.transition(rowId, "drafted", "checked_out", { actor: "t", reason: "checked out", podOrderId: order.order_id })
    yield* Effect.promise(() =>
      admin(simUrl, "POST", `/orders/${order.order_id}/ship`, { trackings: [{ tracking_no: `1Z${id}A`, carrier: "UPS" }] })
    )
    return { rowId, reference, podOrderId: order.order_id }
  })
