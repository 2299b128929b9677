/**
 * The reconciliation report from plain data, pure: the same input always
 * gives the same report. `ReportSources` gathers the input; the writers
 * render the result.
 */
import { driftLedger } from "./DriftLedger.js"
import type { ExchangeRateTable } from "./ExchangeRates.js"
import { flowFigures } from "./FlowFigures.js"
import { moneySection } from "./MoneyFigures.js"
import { attentionCount, needsAPerson } from "./NeedsAPerson.js"
import { podWarnings } from "./PodWarnings.js"
import { podRecords } from "./PodRecords.js"
import type { ReportInput } from "./ReportInput.js"
import type { NeedsAPerson, ReconciliationReport } from "./ReportOutput.js"
import { periodInWords, reportTitle, storeNamesOf } from "./ReportTitle.js"
import { shippedOrders } from "./ShippedOrders.js"

const iso = (ms: number) => new Date(ms).toISOString()

const ratesNote = (rates: ExchangeRateTable | null) =>
  rates === null
    ? " (reports.exchangeRates brings them to one currency)."
    : `; the margin in ${rates.base} converts each amount at the rates of reports.exchangeRates (${
      Object.entries(rates.rates).map(([currency, rate]) => `1 ${currency} = ${rate} ${rates.base}`).join(", ") || "none"
    }), exactly, rounded to the nano.`

const notesFor = (input: ReportInput): ReadonlyArray<string> => [
  "Flow: the orders that entered each step during the period, each order counted once per step. Times come from podsync's order history " +
  "(first pulled → first drafted → first shipped → first fulfilled in the store), measured for the orders that finished the step in the period; p50 and p95 are nearest-rank. " +
  "podsync sees the POD steps by polling: an order seen beyond a step (drafted, then seen shipped) is counted as having passed the steps in between.",
  "Needs a person: orders as they stand when the report was made, however old; drafts count as not checked out after " +
  `${input.settings.notCheckedOutAfterHours} hours.`,
  "Drift: podsync compared with what the POD service and the stores answered when the report was made (read in the background lane of the rate budget); " +
  `a disagreement younger than ${input.settings.noDraftAfterMinutes} minutes is left out, as it usually settles by itself.`,
  "Money: the orders pulled in the period that the POD service has as orders (checked out, not cancelled there). Store revenue is the order total the store reports now " +
  "(after refunds, with the shipping and tax it charged); POD cost is the order_total of the POD orders. Store lines carry no unit prices, so per-SKU figures split each " +
  "order's revenue and POD cost across its POD lines by quantity, in whole cents (left-over cents to the largest remainders): they add up exactly to the store figures. " +
  `Amounts in different currencies are never added up${ratesNote(input.settings.exchangeRates)}`
]

/** Alerts nobody received: a person may not know what this report lists. */
const failedAlertsNote = (input: ReportInput): ReadonlyArray<string> => {
  const failed = input.failedAlerts ?? []
  if (failed.length === 0) return []
  const shown = failed.slice(0, 10).map((f) =>
    `${f.kind}${f.referenceId === null ? "" : ` ${f.referenceId}`} on ${f.channel} (${f.attempts} attempts, last: ${
      f.lastError ?? "no error recorded"
    })`
  )
  return [
    `Alerts not delivered: ${failed.length} alert(s) failed on every retry, so nobody was told of them: ${shown.join("; ")}` +
    `${failed.length > shown.length ? `; and ${failed.length - shown.length} more (podsync status lists them)` : ""}. ` +
    "Check the channel with podsync alerts test."
  ]
}

const forStore = (section: NeedsAPerson, storeKey: string): NeedsAPerson => ({
  held: section.held.filter((g) => g.storeKey === storeKey),
  failed: section.failed.filter((i) => i.storeKey === storeKey),
  cancelPending: section.cancelPending.filter((i) => i.storeKey === storeKey),
  podOnHold: section.podOnHold.filter((i) => i.storeKey === storeKey),
  notCheckedOut: section.notCheckedOut.filter((i) => i.storeKey === storeKey)
})

export const buildReport = (input: ReportInput): ReconciliationReport => {
  const { period } = input
  const keys = input.stores.map((s) => s.key)
  const orders = input.orders.filter((o) => keys.includes(o.storeKey))
  const pod = podRecords(input.pod)

  const createdInStore = (storeKey: string): number | null => {
    const snapshot = input.storeSnapshots.find((s) => s.storeKey === storeKey)
    if (snapshot === undefined || snapshot.error !== null) return null
    return snapshot.orders.filter((o) => {
      const at = Date.parse(o.createdAt)
      return at >= period.from && at < period.to
    }).length
  }
  const created = keys.map(createdInStore)
  const attention = needsAPerson(orders, input.settings, input.generatedAt)
  const drift = driftLedger({ ...input, orders }, pod)
  const money = moneySection(period, orders, pod, input.settings.exchangeRates)

  const notes = [...notesFor(input), ...failedAlertsNote(input)]
  if (!drift.complete) {
    const failures = [
      input.pod.error === null ? undefined : `the POD service (${input.pod.error})`,
      ...input.storeSnapshots.filter((s) => s.error !== null).map((s) => `store ${s.storeKey} (${s.error})`)
    ].filter(Boolean)
    notes.push(`The drift ledger is incomplete: ${failures.join(" and ")} could not be read. Findings that depend on it are missing.`)
  }

  return {
    version: 1,
    title: reportTitle(input.stores, period),
    generatedAt: iso(input.generatedAt),
    period: { from: iso(period.from), to: iso(period.to), timezone: period.timezone, label: period.label, words: periodInWords(period) },
    stores: keys,
    storeNames: storeNamesOf(input.stores),
    store: input.store,
    settings: input.settings,
    notes,
    sources: {
      podDrafts: pod.drafts.length,
      podOrders: pod.orders.length,
      podError: input.pod.error,
      stores: input.storeSnapshots.map((s) => ({ storeKey: s.storeKey, orders: s.orders.length, error: s.error }))
    },
    overall: {
      flow: flowFigures(period, orders, created.some((c) => c === null) ? null : created.reduce<number>((a, b) => a + (b ?? 0), 0)),
      money: money.overall,
      needsAPerson: attentionCount(attention),
      findings: drift.findings.length
    },
    perStore: keys.map((storeKey, index) => ({
      storeKey,
      flow: flowFigures(period, orders.filter((o) => o.storeKey === storeKey), created[index] ?? null),
      money: money.stores.filter((m) => m.storeKey === storeKey),
      needsAPerson: attentionCount(forStore(attention, storeKey)),
      findings: drift.findings.filter((f) => f.storeKey === storeKey).length
    })),
    needsAPerson: attention,
    podWarnings: podWarnings(orders, period, input.generatedAt),
    shipped: shippedOrders(period, orders, pod),
    drift,
    money
  }
}
