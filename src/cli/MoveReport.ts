/** What `podsync db move` copied, compared and said in the seller's words. Pure. */

/** Rows per table and orders by store and state, in the source and in the target. */
export interface Copied {
  readonly counts: { readonly from: ReadonlyMap<string, number>; readonly to: ReadonlyMap<string, number> }
  readonly states: {
    readonly from: ReadonlyMap<string, ReadonlyMap<string, number>>
    readonly to: ReadonlyMap<string, ReadonlyMap<string, number>>
  }
}

/** Each table in a seller's words. */
export const TABLE_WORDS: Readonly<Record<string, string>> = {
  kysely_migration: "database migrations applied",
  store_orders: "orders",
  order_events: "steps of the orders' stories",
  shipments: "shipments (tracking numbers)",
  store_cursors: "stores' pull positions",
  variant_mappings: "mapping rows loaded",
  catalog_variants: "POD catalog variants kept",
  webhook_inbox: "webhook deliveries remembered",
  job_runs: "scheduled runs",
  job_leases: "jobs' turns",
  reports: "reports written",
  rate_budget_credentials: "POD credentials' budgets",
  rate_budget_slots: "POD requests in the budget's log",
  rate_budget_waiters: "replicas waiting on the POD budget",
  store_budgets: "store API budgets",
  store_tokens: "stores' API tokens",
  alert_outbox: "alerts",
  alert_deliveries: "alert deliveries",
  alert_conditions: "conditions alerted on",
  alert_channels: "alert channels"
}

const sameMap = <V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>, same: (x: V, y: V) => boolean) =>
  a.size === b.size && [...a].every(([key, value]) => {
    const other = b.get(key)
    return other !== undefined && same(value, other)
  })

/** Every table has as many rows in both, and every store as many orders in each state. */
export const sameCopy = ({ counts, states }: Copied): boolean =>
  sameMap(counts.from, counts.to, (x, y) => x === y) &&
  sameMap(states.from, states.to, (x, y) => sameMap(x, y, (m, n) => m === n))

const number = (n: number | undefined) => n === undefined ? "-" : n.toLocaleString("en-US")

/**
 * One line per table holding rows: its words, the rows in the source and in the target (a
 * difference marked); then how many tables are empty in both.
 */
export const describeCounts = ({ counts }: Copied, fromHeading: string, toHeading: string): string => {
  const [fromTitle, toTitle] = fromHeading === toHeading ? ["from", "to"] : [fromHeading, toHeading]
  const all = [...new Set([...counts.from.keys(), ...counts.to.keys()])]
  const tables = all.filter((table) => (counts.from.get(table) ?? 0) > 0 || (counts.to.get(table) ?? 0) > 0)
  const empty = all.length - tables.length
  const wordsOf = (table: string) => TABLE_WORDS[table] ?? table
  const width = Math.max(0, ...tables.map((table) => wordsOf(table).length))
  const column = Math.max(10, fromTitle.length, toTitle.length)
  const line = (label: string, a: string, b: string, mark = "") =>
    `  ${label.padEnd(width)}  ${a.padStart(column)}  ${b.padStart(column)}${mark}`
  return [
    line("", fromTitle, toTitle),
    ...tables.map((table) => {
      const [a, b] = [counts.from.get(table), counts.to.get(table)]
      return line(wordsOf(table), number(a), number(b), a === b ? "" : "   DIFFERS")
    }),
    ...(empty > 0 ? [`  (${empty} more table(s) empty in both)`] : [])
  ].join("\n")
}

const statesLine = (states: ReadonlyMap<string, number> | undefined) =>
  states === undefined || states.size === 0
    ? "none"
    : [...states].sort(([, a], [, b]) => b - a).map(([state, n]) => `${number(n)} ${state}`).join(", ")

/** Orders by store and state: one line per store when both agree, both sides where they do not. */
export const describeStates = ({ states }: Copied): string => {
  const stores = [...new Set([...states.from.keys(), ...states.to.keys()])].sort()
  if (stores.length === 0) return "Orders: none."
  const width = Math.max(...stores.map((s) => s.length))
  return [
    "Orders by store and state:",
    ...stores.map((store) => {
      const [a, b] = [states.from.get(store), states.to.get(store)]
      const same = a !== undefined && b !== undefined && sameMap(a, b, (m, n) => m === n)
      return same
        ? `  ${store.padEnd(width)}  ${statesLine(a)}`
        : `  ${store.padEnd(width)}  DIFFERS: ${statesLine(a)} before, ${statesLine(b)} after`
    })
  ].join("\n")
}
