/** The findings as a person reads them in a CI log. */
import type { Findings } from "./ConformanceReport.js"

const pad = (text: string | number, width: number) => String(text).padEnd(width)
const padLeft = (text: string | number, width: number) => String(text).padStart(width)

export const renderFindings = (findings: Findings, openapiPath: string): string => {
  const lines: Array<string> = []
  const { exchanges, requests, answers } = findings
  const skipped = Object.entries(exchanges.skipped).map(([reason, n]) => `${reason}: ${n}`).join(", ")
  lines.push(
    `POD API conformance against ${openapiPath}`,
    `exchanges recorded: ${exchanges.total} (client tour ${exchanges.client}, daemon run ${exchanges.daemon}); skipped: ${
      skipped === "" ? "none" : skipped
    }`,
    `requests checked: ${requests.checked}, rejected: ${requests.rejected}`,
    `answers checked: ${answers.checked}, rejected: ${answers.rejected}${
      answers.unchecked > 0 ? `, not checkable: ${answers.unchecked}` : ""
    }`,
    `distinct kinds of violation: ${findings.distinctKinds}`,
    `auth headers sent: ${Object.entries(findings.authHeaders).map(([pair, n]) => `${pair} ×${n}`).join("; ")}`,
    ""
  )

  if (findings.kinds.length > 0) {
    lines.push("Violations (occurrences  side  operation  where  rule; one example each, more in the JSON summary):")
    for (const kind of findings.kinds) {
      lines.push(
        `${padLeft(kind.count, 6)}  ${pad(kind.side, 7)} ${kind.operation}  ${kind.part}:${
          kind.path === "" ? "/" : kind.path
        }  ${kind.keyword}: ${kind.message}`
      )
      for (const e of kind.examples.slice(0, 1)) {
        const at = e.instancePath === "" ? "" : ` at ${e.instancePath}`
        lines.push(
          `          e.g. [${e.label}] ${e.request.slice(0, 140)} → ${e.status}${at}${e.value === undefined ? "" : `: ${e.value}`}`
        )
      }
    }
    lines.push("")
  }

  const methods = findings.coverage.clientMethods
  const width = Math.max(6, ...methods.map((m) => m.method.length)) + 2
  lines.push(
    "Coverage of the client's methods:",
    `  ${pad("method", width)}${pad("steps", 7)}${pad("sent", 6)}${pad("req✗", 6)}${pad("ans✗", 6)}${
      pad("covered", 9)
    }client operation → contract operation`
  )
  for (const m of methods) {
    const failed = m.stepsFailed > 0 ? ` (${m.stepsFailed} failed)` : ""
    lines.push(
      `  ${pad(m.method, width)}${pad(m.steps, 7)}${pad(m.exchanges, 6)}${pad(m.requestsRejected, 6)}${pad(m.answersRejected, 6)}` +
        `${pad(m.steps === 0 ? "NO STEP" : m.covered ? "yes" : "NO", 9)}${m.clientOperations.join(", ") || "-"} → ${
          m.contractOperations.join(", ") || "-"
        }${failed}`
    )
  }
  lines.push("", "Contract operations (client tour / daemon run):")
  for (const op of findings.coverage.contractOperations) {
    const note = op.client + op.daemon === 0 ? "  (not called by the client)" : ""
    lines.push(
      `  ${pad(`${op.method} ${op.template}`, 48)}${pad(op.operation, 34)}${padLeft(op.client, 4)} / ${padLeft(op.daemon, 4)}${note}`
    )
  }

  if (findings.failedSteps.length > 0) {
    lines.push("", "Client steps that did not end as intended (the exchanges they sent are judged above):")
    for (const step of findings.failedSteps) lines.push(`  ${step.label}: ${step.error ?? "failed"}`)
  }

  const d = findings.daemon
  lines.push("")
  if (d === undefined) lines.push("Daemon run: skipped (--no-daemon)")
  else {
    const hooks = !d.podWebhooks
      ? "POD webhooks off"
      : `POD webhooks on (${d.subscribedBeforeOrders ? "subscribed before the orders came" : "NOT subscribed before the orders came"}), ` +
        `${d.webhookDeliveries.accepted} of ${d.webhookDeliveries.attempts} deliveries accepted`
    lines.push(
      `Daemon run: ${d.fulfilled} of ${d.orders} orders fulfilled in ${d.seconds} s; ${hooks}; final states ${
        JSON.stringify(d.finalStatus)
      }`
    )
    if (d.error !== undefined) lines.push(`  ${d.error}`, ...(d.outputTail ?? "").split("\n").slice(-15).map((l) => `  | ${l}`))
  }
  lines.push("", findings.ok ? "Result: PASS" : `Result: FAIL\n${findings.failures.map((f) => `  - ${f}`).join("\n")}`)
  return lines.join("\n")
}
