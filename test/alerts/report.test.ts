import { describe, expect, it } from "vitest"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { scenarioInput } from "../reports/scenario.js"

describe("the report and undelivered alerts", () => {
  it("says which alerts failed for good, so the report tells what the alerts could not", () => {
    const report = buildReport(scenarioInput({
      failedAlerts: [{ channel: "ops", kind: "order.held", referenceId: "alpha:1001", attempts: 6, lastError: "HTTP 503" }]
    }))
    expect(report.notes).toContain(
      "Alerts not delivered: 1 alert(s) failed on every retry, so nobody was told of them: order.held alpha:1001 on ops " +
        "(6 attempts, last: HTTP 503). Check the channel with podsync alerts test."
    )
    expect(buildReport(scenarioInput()).notes.some((n) => n.startsWith("Alerts not delivered"))).toBe(false)
  })
})
