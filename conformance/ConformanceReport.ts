/**
 * Turns recorded exchanges and their verdicts into the run's findings: counts
 * of requests and answers checked and rejected, the distinct kinds of
 * violation with a few examples each, the coverage of the client's methods
 * and of the contract's operations, the auth header pairs sent, and whether
 * the run passes. Pure: no I/O.
 */
import type { StepOutcome, TourResult } from "./ClientTour.js"
import type { DaemonRunResult } from "./DaemonRun.js"
import type { ContractOperation, Verdict, Violation } from "./OpenApiContract.js"
import type { RecordedExchange } from "./RecordingProxy.js"

export const DAEMON_LABEL = "daemon"

export interface Example {
  readonly phase: "client" | "daemon"
  readonly label: string
  readonly request: string
  readonly status: number
  readonly instancePath: string
  readonly value?: string
}

export interface ViolationKind {
  readonly side: Violation["side"]
  readonly operation: string
  readonly part: Violation["part"]
  /** The instance path with array indexes collapsed to `*`. */
  readonly path: string
  readonly keyword: string
  readonly message: string
  readonly count: number
  readonly examples: ReadonlyArray<Example>
}

export interface MethodCoverage {
  readonly method: string
  readonly steps: number
  readonly stepsFailed: number
  readonly clientOperations: ReadonlyArray<string>
  readonly contractOperations: ReadonlyArray<string>
  readonly exchanges: number
  readonly requestsRejected: number
  readonly answersRejected: number
  /** At least one exchange of its steps was judged against a contract operation, answer included. */
  readonly covered: boolean
}

export interface OperationUse {
  readonly operation: string
  readonly method: string
  readonly template: string
  readonly client: number
  readonly daemon: number
}

export interface Findings {
  readonly exchanges: {
    readonly total: number
    readonly client: number
    readonly daemon: number
    readonly skipped: Readonly<Record<string, number>>
  }
  readonly requests: { readonly checked: number; readonly rejected: number }
  readonly answers: { readonly checked: number; readonly rejected: number; readonly unchecked: number }
  readonly distinctKinds: number
  readonly kinds: ReadonlyArray<ViolationKind>
  readonly coverage: { readonly clientMethods: ReadonlyArray<MethodCoverage>; readonly contractOperations: ReadonlyArray<OperationUse> }
  readonly authHeaders: Readonly<Record<string, number>>
  readonly failedSteps: ReadonlyArray<StepOutcome>
  readonly daemon?: DaemonRunResult
  readonly failures: ReadonlyArray<string>
  readonly ok: boolean
}

const EXAMPLES_PER_KIND = 3

export const collapseIndexes = (instancePath: string) => instancePath.replace(/\/\d+(?=\/|$)/g, "/*")

const clip = (value: unknown, max = 160): string | undefined => {
  if (value === undefined) return undefined
  const text = JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max)}…` : text
}

const phaseOf = (exchange: RecordedExchange) => (exchange.label === DAEMON_LABEL ? "daemon" : "client")

/** The auth header pair of a request: its `*-key` and `*-secret` headers, as named on the wire. */
export const authPair = (headers: ReadonlyArray<readonly [string, string]>): string => {
  const names = headers.map(([name]) => name)
  const key = names.find((n) => /-key$/i.test(n))
  const secret = names.find((n) => /-secret$/i.test(n))
  return key === undefined && secret === undefined ? "none" : `${key ?? "(no key)"} + ${secret ?? "(no secret)"}`
}

export const tally = (
  judged: ReadonlyArray<{ readonly exchange: RecordedExchange; readonly verdict: Verdict }>,
  operations: ReadonlyArray<ContractOperation>,
  tour: TourResult,
  daemon: DaemonRunResult | undefined
): Findings => {
  const skipped: Record<string, number> = {}
  const authHeaders: Record<string, number> = {}
  const kinds = new Map<string, { kind: Omit<ViolationKind, "count" | "examples">; count: number; examples: Array<Example> }>()
  const uses = new Map(operations.map((op) => [op.operationId, { ...op, client: 0, daemon: 0 }]))
  const byLabel = new Map<
    string,
    { exchanges: number; requestsRejected: number; answersRejected: number; operations: Set<string>; answered: boolean }
  >()
  let requestsChecked = 0, requestsRejected = 0, answersChecked = 0, answersRejected = 0, answersUnchecked = 0

  for (const { exchange, verdict } of judged) {
    if (verdict._tag === "Skipped") {
      skipped[verdict.reason] = (skipped[verdict.reason] ?? 0) + 1
      continue
    }
    const phase = phaseOf(exchange)
    const pair = authPair(exchange.requestHeaders)
    authHeaders[pair] = (authHeaders[pair] ?? 0) + 1
    const requestBad = verdict.violations.some((v) => v.side === "request")
    const answerBad = verdict.violations.some((v) => v.side === "answer")
    requestsChecked++
    if (requestBad) requestsRejected++
    if (verdict.answerChecked) answersChecked++
    else answersUnchecked++
    if (answerBad) answersRejected++
    const use = verdict.operationId === undefined ? undefined : uses.get(verdict.operationId)
    if (use) use[phase]++

    const row = byLabel.get(exchange.label) ??
      { exchanges: 0, requestsRejected: 0, answersRejected: 0, operations: new Set<string>(), answered: false }
    row.exchanges++
    if (requestBad) row.requestsRejected++
    if (answerBad) row.answersRejected++
    if (verdict.operationId !== undefined) {
      row.operations.add(verdict.operation)
      if (verdict.answerChecked) row.answered = true
    }
    byLabel.set(exchange.label, row)

    for (const v of verdict.violations) {
      const kind = {
        side: v.side,
        operation: verdict.operation,
        part: v.part,
        path: collapseIndexes(v.instancePath),
        keyword: v.keyword,
        message: v.message
      }
      const key = JSON.stringify(kind)
      const entry = kinds.get(key) ?? { kind, count: 0, examples: [] }
      entry.count++
      const value = clip(v.value)
      const example: Example = {
        phase,
        label: exchange.label,
        request: `${exchange.method} ${exchange.path}${exchange.query === "" ? "" : `?${exchange.query}`}`,
        status: exchange.status,
        instancePath: v.instancePath,
        ...(value === undefined ? {} : { value })
      }
      // One example per client step or daemon run first, so the examples show different calls.
      if (entry.examples.length < EXAMPLES_PER_KIND && !entry.examples.some((e) => e.label === example.label)) entry.examples.push(example)
      kinds.set(key, entry)
    }
  }

  const clientMethods: Array<MethodCoverage> = tour.methods.map((method) => {
    const outcomes = tour.outcomes.filter((o) => o.method === method)
    const rows = outcomes.flatMap((o) => byLabel.get(o.label) ?? [])
    return {
      method,
      steps: outcomes.length,
      stepsFailed: outcomes.filter((o) => !o.ok).length,
      clientOperations: [...new Set(outcomes.flatMap((o) => o.clientOperations))],
      contractOperations: [...new Set(rows.flatMap((r) => [...r.operations]))],
      exchanges: rows.reduce((n, r) => n + r.exchanges, 0),
      requestsRejected: rows.reduce((n, r) => n + r.requestsRejected, 0),
      answersRejected: rows.reduce((n, r) => n + r.answersRejected, 0),
      covered: rows.some((r) => r.answered)
    }
  })

  const sortedKinds = [...kinds.values()]
    .map(({ kind, count, examples }) => ({ ...kind, count, examples }))
    .sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation) || a.path.localeCompare(b.path))
  const notDriven = clientMethods.filter((m) => m.steps === 0).map((m) => m.method)
  const uncovered = clientMethods.filter((m) => m.steps > 0 && !m.covered).map((m) => m.method)
  const failures = [
    ...(requestsRejected > 0 ? [`${requestsRejected} of ${requestsChecked} requests rejected by the contract`] : []),
    ...(answersRejected > 0 ? [`${answersRejected} of ${answersChecked} answers rejected by the contract`] : []),
    ...(notDriven.length > 0 ? [`client methods with no step in the tour: ${notDriven.join(", ")}`] : []),
    ...(uncovered.length > 0 ? [`client methods whose steps sent no judged exchange: ${uncovered.join(", ")}`] : []),
    ...(daemon?.error === undefined ? [] : [`daemon run: ${daemon.error}`]),
    // Deliveries signed as the service signs them must be accepted: a refusal means the receiver misreads the published scheme.
    ...(daemon !== undefined && daemon.webhookDeliveries.accepted < daemon.webhookDeliveries.attempts
      ? [
        `daemon run: ${
          daemon.webhookDeliveries.attempts - daemon.webhookDeliveries.accepted
        } of ${daemon.webhookDeliveries.attempts} POD webhook deliveries refused`
      ]
      : [])
  ]
  const all = judged.length
  const daemonCount = judged.filter((j) => phaseOf(j.exchange) === "daemon").length
  return {
    exchanges: { total: all, client: all - daemonCount, daemon: daemonCount, skipped },
    requests: { checked: requestsChecked, rejected: requestsRejected },
    answers: { checked: answersChecked, rejected: answersRejected, unchecked: answersUnchecked },
    distinctKinds: sortedKinds.length,
    kinds: sortedKinds,
    coverage: { clientMethods, contractOperations: [...uses.values()].map(({ operationId: _id, ...use }) => use) },
    authHeaders,
    failedSteps: tour.outcomes.filter((o) => !o.ok),
    ...(daemon === undefined ? {} : { daemon }),
    failures,
    ok: failures.length === 0
  }
}
