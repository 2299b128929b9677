import { describe, expect, it } from "vitest"
import { renderFragment } from "../../src/console/Html.js"
import { queueContent } from "../../src/console/QueueView.js"
import type { WaitingOrder } from "../../src/repos/AttentionRepo.js"

const NOW = Date.parse("2026-11-29T09:30:00Z")
const order = (id: number, extra: Partial<WaitingOrder>): WaitingOrder => ({
  id,
  storeKey: "acme-woocommerce-eu",
  referenceId: `acme-woocommerce-eu:${7700 + id}`,
  name: `#${7700 + id} Marie-Christine Oberhausen-Delacroix`,
  state: "held",
  heldReason: null,
  message: null,
  podDraftId: null,
  podOrderId: null,
  updatedAt: new Date(NOW - 60_000),
  waitingSince: new Date(NOW - 5 * 3_600_000),
  ...extra
})

const render = (orders: ReadonlyArray<WaitingOrder>, awaitingPayment = [{ storeKey: "acme-woocommerce-eu", count: 2 }]) =>
  renderFragment(queueContent({
    orders,
    storeKeys: ["acme-woocommerce-eu"],
    reasonKeys: [],
    filter: {},
    nowMs: NOW,
    csrfToken: "t",
    actionKey: "k",
    outcomes: [],
    limit: 200,
    links: (o) => [{ label: "open at the POD service", href: `https://pod.example.com/orders/${o.podOrderId ?? o.podDraftId}` }],
    awaitingPayment
  }))

describe("the queue's rows", () => {
  it("counts waiting from when the order began to wait, not its last change", () => {
    const page = render([order(1, { heldReason: "unmatched", message: "no mapping row for TEE-BLK-M" })])
    expect(page).toContain("<td>5 h")
    expect(page).not.toContain("<td>1 min")
  })

  it("shows a pending cancel's POD order, its link at the service and what to do there", () => {
    const page = render([order(2, { state: "cancel_pending", podDraftId: "D-77120045", podOrderId: "GM-771204500" })])
    expect(page).toMatch(/POD order <strong>GM-771204500<\/strong>: cancel it at the POD service/)
    expect(page).toContain(`href="https://pod.example.com/orders/GM-771204500"`)
    expect(page).toContain("cancel the POD order at the POD service (the API has no cancel), then Mark handled")
  })

  it("shows why the POD service holds an order", () => {
    const page = render([
      order(3, { state: "pod_on_hold", podOrderId: "GM-771204511", message: "the POD service could not verify the address" })
    ])
    expect(page).toContain("POD order <strong>GM-771204511</strong>: the POD service could not verify the address")
  })

  it("counts orders unpaid at the store apart, with nothing to do", () => {
    const page = render([order(4, { heldReason: "unmatched" })])
    expect(page).toContain("2 orders wait for payment at the store</a>")
    expect(page).toContain(`href="/console/queue?reason=held:unpaid"`)
    expect(page).toContain("nothing to do, podsync drafts them once paid")
    expect(render([order(4, { heldReason: "unmatched" })], [])).not.toContain("wait for payment")
  })
})
