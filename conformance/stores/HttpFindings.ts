/**
 * The recorded exchanges of a REST store (Etsy) and their verdicts against
 * its OpenAPI document, counted: requests and answers checked and rejected,
 * the distinct kinds of violation with an example each, the operations
 * used, the credentials' shapes; and what the tour itself left undone
 * (steps that failed, operations not driven, steps that should have sent
 * something and did not). Pure: no I/O.
 */
import { collapseIndexes } from "../ConformanceReport.js"
import type { ContractOperation, Verdict } from "../OpenApiContract.js"
import type { RecordedExchange } from "../RecordingProxy.js"
import type { StoreTourResult } from "./StoreTour.js"

export interface Judged {
  readonly exchange: RecordedExchange
  readonly verdict: Verdict
}

export interface HttpViolationKind {
  readonly side: string
  readonly operation: string
  readonly where: string
  readonly rule: string
  readonly count: number
  readonly example: string
}

export interface HttpFindings {
  readonly exchanges: number
  readonly skipped: Readonly<Record<string, number>>
  readonly requests: { readonly checked: number; readonly rejected: number }
  readonly answers: { readonly checked: number; readonly rejected: number; readonly unchecked: number }
  readonly kinds: ReadonlyArray<HttpViolationKind>
  readonly operationsUsed: ReadonlyArray<{ readonly operation: string; readonly request: string; readonly count: number }>
  readonly contractOperations: number
  /** The credential headers sent, values masked to their shape (`x-api-key: <masked>:<masked>`). */
  readonly credentials: Readonly<Record<string, number>>
}

const CREDENTIAL = /^(authorization|x-api-key|x-shopify-access-token)$/i

export const tallyHttp = (judged: ReadonlyArray<Judged>, operations: ReadonlyArray<ContractOperation>): HttpFindings => {
  const skipped: Record<string, number> = {}
  const credentials: Record<string, number> = {}
  const kinds = new Map<string, Omit<HttpViolationKind, "count"> & { count: number }>()
  const used = new Map<string, { operation: string; request: string; count: number }>()
  let requestsChecked = 0, requestsRejected = 0, answersChecked = 0, answersRejected = 0, answersUnchecked = 0
  for (const { exchange, verdict } of judged) {
    const shape = exchange.requestHeaders.filter(([name]) => CREDENTIAL.test(name)).map(([name, value]) =>
      `${name.toLowerCase()}: ${value}`
    ).join(" + ")
    credentials[shape || "none"] = (credentials[shape || "none"] ?? 0) + 1
    if (verdict._tag === "Skipped") {
      skipped[verdict.reason] = (skipped[verdict.reason] ?? 0) + 1
      continue
    }
    requestsChecked++
    if (verdict.violations.some((v) => v.side === "request")) requestsRejected++
    if (verdict.answerChecked) answersChecked++
    else answersUnchecked++
    if (verdict.violations.some((v) => v.side === "answer")) answersRejected++
    const op = operations.find((o) => o.operationId === verdict.operationId)
    const request = op === undefined ? `${exchange.method} ${exchange.path}` : `${op.method} ${op.template}`
    const use = used.get(verdict.operation) ?? { operation: verdict.operation, request, count: 0 }
    use.count++
    used.set(verdict.operation, use)
    for (const v of verdict.violations) {
      const kind = {
        side: v.side,
        operation: verdict.operation,
        where: `${v.part}:${collapseIndexes(v.instancePath) || "/"}`,
        rule: `${v.keyword}: ${v.message}`
      }
      const key = JSON.stringify(kind)
      const entry = kinds.get(key) ?? {
        ...kind,
        count: 0,
        example: `[${exchange.label}] ${exchange.method} ${exchange.path} → ${exchange.status}${
          v.value === undefined ? "" : `: ${JSON.stringify(v.value)?.slice(0, 160)}`
        }`
      }
      entry.count++
      kinds.set(key, entry)
    }
  }
  return {
    exchanges: judged.length,
    skipped,
    requests: { checked: requestsChecked, rejected: requestsRejected },
    answers: { checked: answersChecked, rejected: answersRejected, unchecked: answersUnchecked },
    kinds: [...kinds.values()].sort((a, b) => b.count - a.count),
    operationsUsed: [...used.values()].sort((a, b) => a.operation.localeCompare(b.operation)),
    contractOperations: operations.length,
    credentials
  }
}

/** What the tour left undone, as failures. */
export const tourFailures = (tour: StoreTourResult, exchanges: ReadonlyArray<RecordedExchange>): ReadonlyArray<string> => {
  const sentBy = new Map<string, number>()
  for (const e of exchanges) sentBy.set(e.label, (sentBy.get(e.label) ?? 0) + 1)
  return [
    ...tour.outcomes.filter((o) => !o.ok).map((o) => `${tour.platform} step "${o.label}" did not end as intended: ${o.error ?? "?"}`),
    ...tour.outcomes
      .filter((o) => o.ok && o.sends && (sentBy.get(`${tour.platform}: ${o.label}`) ?? 0) === 0)
      .map((o) => `${tour.platform} step "${o.label}" sent nothing to judge`),
    ...(tour.notDriven.length > 0 ? [`${tour.platform} operations with no step in the tour: ${tour.notDriven.join(", ")}`] : [])
  ]
}
