import { describe, expect, it } from "vitest"
import { sampleDraftData, startPodSimulator } from "../../src/simulator/pod/index.js"
import { AUTH, request, usePodSimulator, waitFor } from "./podHarness.js"

const pod = usePodSimulator({ rateLimit: false })

const getDraft = async (id: string) => (await pod.api("GET", `/api/v3/orders/draft/${id}`)).body.data
const getOrder = async (id: string) => (await pod.api("GET", `/api/v3/orders/${id}`)).body.data
const listOrder = async (id: string) => (await pod.api("GET", `/api/v3/orders?filter.order_ids=${id}`)).body.data?.[0]

describe("draft → order lifecycle driven by admin calls", () => {
  it("creates approved drafts by default and holds others until approved", async () => {
    const approved = await pod.createDraft({ referenceId: "acme:1" })
    expect(approved).toMatchObject({ status: "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT", is_approved: true, reference_id: "acme:1" })
    expect(approved.platform_ref).toBeUndefined()
    const pending = await pod.createDraft({ referenceId: "acme:2", autoApprove: false })
    // Protobuf JSON leaves `is_approved: false` out.
    expect(pending).toMatchObject({ status: "VENDOR_ORDER_DRAFT_STATUS_DRAFT" })
    expect(pending).not.toHaveProperty("is_approved")
    const reply = await pod.api("POST", `/api/v3/orders/draft/${pending.order_id}/approve`, { order_id: pending.order_id })
    // The published approve answer carries no draft.
    expect(reply.body).toEqual({ status: "success", is_approved: true, message: expect.any(String) })
    expect(await getDraft(pending.order_id)).toMatchObject({
      status: "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT",
      is_approved: true,
      approved_at: expect.any(String)
    })
    expect((await getDraft(pending.order_id)).platform_ref).toBe("acme:2")
  })

  it("walks an order from checkout to SHIPPED one step at a time", async () => {
    const draft = await pod.createDraft({ referenceId: "acme:3" })
    const checkout = await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`)
    const orderId = checkout.body.order_id as string
    expect(orderId).not.toBe(draft.order_id)
    expect(await getDraft(draft.order_id)).toMatchObject({ status: "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT", origin_order_id: orderId })
    expect(await getOrder(orderId)).toMatchObject({ order_status: "VENDOR_ORDER_STATUS_AWAITING_PAYMENT", reference_id: "acme:3" })
    // Payment status and ship time are on list items only.
    expect(await listOrder(orderId)).toMatchObject({ payment_status: "VENDOR_ORDER_PAYMENT_STATUS_PENDING" })
    const seen: Array<string> = []
    for (let i = 0; i < 4; i++) seen.push((await pod.admin("POST", `/__sim/orders/${orderId}/advance`)).body.order_status)
    expect(seen).toEqual([
      "VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT",
      "VENDOR_ORDER_STATUS_IN_PRODUCTION",
      "VENDOR_ORDER_STATUS_PACKED",
      "VENDOR_ORDER_STATUS_SHIPPED"
    ])
    const order = await getOrder(orderId)
    expect(await listOrder(orderId)).toMatchObject({
      payment_status: "VENDOR_ORDER_PAYMENT_STATUS_SUCCESS",
      shipped_at: expect.any(String)
    })
    expect(order.order_trackings).toHaveLength(1)
    expect(order.order_trackings[0]).toMatchObject({ tracking_type: "TRACKING_TYPE_PRIMARY", tracking_no: order.tracking_no })
    expect(order.stages.map((s: { stage_name: string }) => s.stage_name)).toEqual([
      "AWAITING_PAYMENT",
      "AWAITING_FULFILLMENT",
      "IN_PRODUCTION",
      "PACKED",
      "SHIPPED"
    ])
    expect((await pod.admin("POST", `/__sim/orders/${orderId}/advance`)).status).toBe(409)
    expect((await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`)).status).toBe(409)
  })

  it("ships with given trackings and adds packages on a second call", async () => {
    const draft = await pod.createDraft({ referenceId: "acme:4" })
    const orderId = (await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`, { paid: true })).body.order_id
    expect((await getOrder(orderId)).order_status).toBe("VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT")
    await pod.admin("POST", `/__sim/orders/${orderId}/ship`, {
      trackings: [{ tracking_no: "1ZA", carrier: "UPS", tracking_url: "https://ups.example/1ZA" }]
    })
    await pod.admin("POST", `/__sim/orders/${orderId}/ship`, {
      trackings: [{ tracking_no: "1ZB", carrier: "UPS", tracking_url: "https://ups.example/1ZB" }]
    })
    const order = await getOrder(orderId)
    expect(order.order_status).toBe("VENDOR_ORDER_STATUS_SHIPPED")
    expect(order.order_trackings.map((t: { tracking_no: string; tracking_type: string }) => [t.tracking_no, t.tracking_type])).toEqual([
      ["1ZA", "TRACKING_TYPE_PRIMARY"],
      ["1ZB", "TRACKING_TYPE_SECONDARY"]
    ])
    const listed = (await pod.api("GET", `/api/v3/orders?filter.order_ids=${orderId}`)).body.data[0]
    // A list item carries the primary tracking as `tracking_number`, and no `order_trackings`.
    expect(listed).toMatchObject({ tracking_number: "1ZA", tracking_company: "UPS", tracking_link: "https://ups.example/1ZA" })
    expect(listed).not.toHaveProperty("order_trackings")
    expect(listed).not.toHaveProperty("created_at")
  })

  it("ships in several boxes on request: N at once by admin, or split by the fault board one box per ship-all", async () => {
    const draft = await pod.createDraft({ referenceId: "acme:split-1" })
    const orderId = (await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`, { paid: true })).body.order_id
    await pod.admin("POST", `/__sim/orders/${orderId}/ship`, { packages: 3 })
    const boxes = (await getOrder(orderId)).order_trackings
    expect(boxes.map((t: { tracking_type: string }) => t.tracking_type)).toEqual([
      "TRACKING_TYPE_PRIMARY",
      "TRACKING_TYPE_SECONDARY",
      "TRACKING_TYPE_SECONDARY"
    ])
    expect(new Set(boxes.map((t: { tracking_no: string }) => t.tracking_no)).size).toBe(3)
    expect((await pod.admin("POST", `/__sim/orders/${orderId}/ship`, { packages: 0 })).status).toBe(400)

    // Every order shipped from now on goes in two boxes: the second at the next ship-all, then no more.
    expect((await pod.admin("POST", "/__sim/faults", { kind: "splitPackages", packages: 2, count: 1 })).status).toBe(200)
    const split = await pod.createDraft({ referenceId: "acme:split-2" })
    const splitId = (await pod.admin("POST", `/__sim/drafts/${split.order_id}/checkout`, { paid: true })).body.order_id
    await pod.admin("POST", "/__sim/ship-all")
    expect((await getOrder(splitId)).order_trackings).toHaveLength(1)
    await pod.admin("POST", "/__sim/ship-all")
    expect((await getOrder(splitId)).order_trackings).toHaveLength(2)
    await pod.admin("POST", "/__sim/ship-all")
    expect((await getOrder(splitId)).order_trackings).toHaveLength(2)
    // The list item keeps the first box as its primary tracking.
    expect(await listOrder(splitId)).toMatchObject({ tracking_number: (await getOrder(splitId)).order_trackings[0].tracking_no })
    await pod.admin("DELETE", "/__sim/faults")
  })

  it("cancels and holds orders, and resumes a held order where it was", async () => {
    const [a, b] = [await pod.createDraft({ referenceId: "c:1" }), await pod.createDraft({ referenceId: "c:2" })]
    const { order_ids: ids } = (await pod.admin("POST", "/__sim/checkout-all")).body
    expect(ids).toHaveLength(2)
    const [first, second] = [(await getDraft(a.order_id)).origin_order_id, (await getDraft(b.order_id)).origin_order_id]
    expect((await pod.admin("POST", `/__sim/orders/${first}/cancel`)).body.order_status).toBe("VENDOR_ORDER_STATUS_CANCELLED")
    expect((await getOrder(first)).cancel_status).toBe("VENDOR_ORDER_CANCEL_STATUS_CANCELED")
    expect((await pod.admin("POST", `/__sim/orders/${first}/advance`)).status).toBe(409)
    await pod.admin("POST", `/__sim/orders/${second}/advance`)
    expect((await pod.admin("POST", `/__sim/orders/${second}/hold`)).body.order_status).toBe("VENDOR_ORDER_STATUS_ON_HOLD")
    expect((await pod.admin("POST", `/__sim/orders/${second}/advance`)).body.order_status).toBe("VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT")
    expect((await pod.admin("POST", `/__sim/orders/${second}/advance`, { to: "PACKED" })).body.order_status).toBe(
      "VENDOR_ORDER_STATUS_PACKED"
    )
    expect((await pod.admin("POST", "/__sim/ship-all")).body.order_ids).toEqual([second])
    expect((await pod.admin("POST", `/__sim/orders/${second}/cancel`)).status).toBe(409)
    expect((await pod.admin("POST", "/__sim/orders/nope/advance")).status).toBe(404)
  })

  it("lists drafts and orders by reference id without deduplicating them", async () => {
    await pod.createDraft({ referenceId: "dup:1" })
    await pod.createDraft({ referenceId: "dup:1" })
    await pod.createDraft({ referenceId: "other:1" })
    const drafts = (await pod.api("GET", "/api/v3/orders/draft?filter.reference_ids=dup:1&filter.reference_ids=none")).body
    expect(drafts.data).toHaveLength(2)
    expect(Number(drafts.paging.total)).toBe(2)
    await pod.admin("POST", "/__sim/checkout-all")
    const orders = (await pod.api("GET", "/api/v3/orders?filter.reference_ids=other:1")).body.data
    expect(orders.map((o: { reference_id: string }) => o.reference_id)).toEqual(["other:1"])
    const stats = (await pod.admin("GET", "/__sim/stats")).body
    expect(stats.draftsByReferenceId).toEqual({ "dup:1": 2, "other:1": 1 })
    expect(stats.duplicateReferenceIds).toEqual(["dup:1"])
  })

  it("filters orders by status and payment status, drafts by status", async () => {
    const a = await pod.createDraft({ referenceId: "f:1" })
    await pod.createDraft({ referenceId: "f:2" })
    const orderId = (await pod.admin("POST", `/__sim/drafts/${a.order_id}/checkout`, { paid: true })).body.order_id
    const paid = await pod.api(
      "GET",
      "/api/v3/orders?filter.payment_status=VENDOR_ORDER_PAYMENT_STATUS_SUCCESS&filter.statuses=VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT"
    )
    expect(paid.body.data.map((o: { order_id: string }) => o.order_id)).toEqual([orderId])
    const waiting = await pod.api("GET", "/api/v3/orders/draft?filter.statuses=VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT")
    expect(waiting.body.data.map((d: { reference_id: string }) => d.reference_id)).toEqual(["f:2"])
    expect((await pod.api("GET", "/api/v3/orders?filter.statuses=SHIPPED")).status).toBe(400)
    const future = new Date(Date.now() + 60_000).toISOString()
    expect((await pod.api("GET", `/api/v3/orders/draft?filter.created_at_min=${future}`)).body.data).toBeUndefined()
  })

  it("advances orders on its own when a clock step is configured", async () => {
    const sim = await startPodSimulator({ autoAdvance: { stepMs: 20 }, rateLimit: false, enumNumbers: false })
    try {
      const variant = (await request(
        `${sim.url}/api/v3/catalog/variants?filter.stock_labels=VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK&paging.limit=1`,
        "GET",
        undefined,
        AUTH
      )).body.data[0]
      const created = await request(`${sim.url}/api/v3/orders/draft`, "POST", {
        data: sampleDraftData({ variantId: variant.variant_id, referenceId: "clock:1" })
      }, AUTH)
      const shipped = await waitFor(async () => {
        const list = (await request(`${sim.url}/api/v3/orders?filter.reference_ids=clock:1`, "GET", undefined, AUTH)).body
        return list.data?.[0]?.order_status === "VENDOR_ORDER_STATUS_SHIPPED" ? list.data[0] : undefined
      })
      expect(shipped.tracking_number).toMatch(/\S/)
      const draft = (await request(`${sim.url}/api/v3/orders/draft/${created.body.data.order_id}`, "GET", undefined, AUTH)).body
      expect(draft.data.origin_order_id).toBe(shipped.order_id)
    } finally {
      await sim.close()
    }
  })
})
