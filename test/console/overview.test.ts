import { describe, expect, it } from "vitest"
import { renderFragment } from "../../src/console/Html.js"
import { overviewLive } from "../../src/console/OverviewView.js"
import type { StatusReport } from "../../src/observability/StatusReport.js"

const report = (alerts: StatusReport["alerts"]): StatusReport => ({
  generatedAt: "2026-11-25T12:00:00.000Z",
  orders: [],
  held: [],
  attention: [],
  queues: [],
  pulls: [],
  budget: null,
  traffic: null,
  ...(alerts === undefined ? {} : { alerts })
})

describe("the console's overview", () => {
  it("shows what the alert channels did, and each alert a channel could not take, with its last error", () => {
    const page = renderFragment(overviewLive(
      report({
        pending: 2,
        sent: 7,
        failed: [{
          channel: "ops",
          kind: "order.held",
          reason: "unmatched",
          referenceId: "acme-shopify:1001",
          attempts: 6,
          lastError: "HTTP 500 from the webhook",
          at: "2026-11-25T11:00:00.000Z"
        }]
      }),
      { drift: null }
    ))
    expect(page).toContain('7 sent, 2 waiting, <span class="bad">1 failed</span>')
    expect(page).toContain("<td>ops</td><td>order.held (unmatched)</td>")
    expect(page).toContain(`href="/console/order?ref=acme-shopify%3A1001"`)
    expect(page).toContain("HTTP 500 from the webhook")
  })

  it("says nothing of alerts where the daemon has no alert channels", () => {
    expect(renderFragment(overviewLive(report(undefined), { drift: null }))).not.toContain("<h2>Alerts</h2>")
  })
})
