import { displayFulfillmentStatus, type StoredOrder } from "./model.js"

/**
 * Shopify search syntax for the `orders(query:)` argument: `field:value`, comparators `:<`, `:<=`, `:>`,
 * `:>=`, quoted values ('…' or "…"), implicit AND between terms, `AND`, `OR`, `NOT` / leading `-`,
 * parentheses, and bare words (matched against name and email). Unknown fields match everything, as
 * Shopify ignores filters it does not know.
 */

export type SearchNode =
  | { readonly kind: "and" | "or"; readonly left: SearchNode; readonly right: SearchNode }
  | { readonly kind: "not"; readonly inner: SearchNode }
  | { readonly kind: "term"; readonly field: string | null; readonly op: Comparator; readonly value: string }
  | { readonly kind: "all" }

type Comparator = ":" | "<" | "<=" | ">" | ">="

type Token = { type: "word"; text: string; quoted: boolean } | { type: "(" | ")" }

const tokenize = (input: string): Token[] => {
  const tokens: Token[] = []
  let i = 0
  while (i < input.length) {
    const c = input[i]!
    if (/\s/.test(c)) {
      i++
      continue
    }
    if (c === "(" || c === ")") {
      tokens.push({ type: c })
      i++
      continue
    }
    let text = ""
    let quoted = false
    while (i < input.length && !/\s/.test(input[i]!) && input[i] !== ")" && !(input[i] === "(" && text === "")) {
      const ch = input[i]!
      if (ch === "'" || ch === '"') {
        const end = input.indexOf(ch, i + 1)
        const stop = end === -1 ? input.length : end
        text += input.slice(i + 1, stop)
        quoted = true
        i = stop + 1
      } else if (ch === "\\" && i + 1 < input.length) {
        text += input[i + 1]
        i += 2
      } else {
        text += ch
        i++
      }
    }
    tokens.push({ type: "word", text, quoted })
  }
  return tokens
}

const parseTerm = (text: string): SearchNode => {
  const match = /^([A-Za-z_.]+):(<=|>=|<|>)?(.*)$/s.exec(text)
  if (!match) return { kind: "term", field: null, op: ":", value: text }
  return { kind: "term", field: match[1]!.toLowerCase(), op: (match[2] ?? ":") as Comparator, value: match[3] ?? "" }
}

export const parseSearch = (input: string): SearchNode => {
  const tokens = tokenize(input)
  let pos = 0
  const peekWord = (): string | null => {
    const t = tokens[pos]
    return t && t.type === "word" && !t.quoted ? t.text : null
  }
  const parseOr = (): SearchNode => {
    let left = parseAnd()
    while (peekWord() === "OR") {
      pos++
      left = { kind: "or", left, right: parseAnd() }
    }
    return left
  }
  const parseAnd = (): SearchNode => {
    let left = parseUnary()
    for (;;) {
      const t = tokens[pos]
      if (!t || t.type === ")" || peekWord() === "OR") return left
      if (peekWord() === "AND") pos++
      left = { kind: "and", left, right: parseUnary() }
    }
  }
  const parseUnary = (): SearchNode => {
    const t = tokens[pos]
    if (!t) return { kind: "all" }
    if (t.type === "(") {
      pos++
      const inner = parseOr()
      if (tokens[pos]?.type === ")") pos++
      return inner
    }
    pos++
    if (t.type !== "word") return { kind: "all" }
    if (!t.quoted && t.text === "NOT") return { kind: "not", inner: parseUnary() }
    if (!t.quoted && t.text.startsWith("-") && t.text.length > 1) return { kind: "not", inner: parseTerm(t.text.slice(1)) }
    return parseTerm(t.text)
  }
  return tokens.length === 0 ? { kind: "all" } : parseOr()
}

const compare = (actual: number | string, op: Comparator, expected: number | string): boolean => {
  switch (op) {
    case ":":
      return actual === expected
    case "<":
      return actual < expected
    case "<=":
      return actual <= expected
    case ">":
      return actual > expected
    case ">=":
      return actual >= expected
  }
}

/** ISO date or datetime (a bare date means its midnight UTC); `now` is accepted too. */
const parseTime = (value: string, now: number): number | null => {
  if (value.toLowerCase() === "now") return now
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(ms) ? null : ms
}

const matchesTime = (actual: number | null, op: Comparator, value: string, now: number): boolean => {
  const expected = parseTime(value, now)
  if (expected === null || actual === null) return false
  // `field:2025-01-01` (a bare date) matches the whole day.
  if (op === ":" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return actual >= expected && actual < expected + 86_400_000
  return compare(actual, op, expected)
}

const fulfillmentMatches = (order: StoredOrder, value: string): boolean => {
  const display = displayFulfillmentStatus(order)
  switch (value) {
    case "shipped":
    case "fulfilled":
      return display === "FULFILLED"
    case "partial":
      return display === "PARTIALLY_FULFILLED"
    case "unshipped":
    case "unfulfilled":
      return display === "UNFULFILLED" || display === "ON_HOLD" || display === "IN_PROGRESS"
    case "on_hold":
      return display === "ON_HOLD"
    case "in_progress":
      return display === "IN_PROGRESS"
    case "any":
      return true
    default:
      return false
  }
}

const statusMatches = (order: StoredOrder, value: string): boolean => {
  switch (value) {
    case "open":
      return order.closedAt === null && order.cancelledAt === null
    case "closed":
      return order.closedAt !== null
    case "cancelled":
      return order.cancelledAt !== null
    case "not_closed":
      return order.closedAt === null
    case "any":
      return true
    default:
      return false
  }
}

const matchesTerm = (order: StoredOrder, field: string | null, op: Comparator, raw: string, now: number): boolean => {
  const value = raw.toLowerCase()
  switch (field) {
    case null:
      return value === "" || order.name.toLowerCase().includes(value) || (order.email ?? "").toLowerCase().includes(value)
    case "updated_at":
      return matchesTime(order.updatedAt, op, raw, now)
    case "created_at":
      return matchesTime(order.createdAt, op, raw, now)
    case "processed_at":
      return matchesTime(order.processedAt, op, raw, now)
    case "financial_status":
      return value === "any" || order.financialStatus.toLowerCase() === value
    case "fulfillment_status":
      return fulfillmentMatches(order, value)
    case "status":
      return statusMatches(order, value)
    case "tag":
      return order.tags.some((t) => t.toLowerCase() === value)
    case "tag_not":
      return !order.tags.some((t) => t.toLowerCase() === value)
    case "email":
      return (order.email ?? "").toLowerCase() === value
    case "name":
      return order.name.toLowerCase() === value || order.name.toLowerCase() === `#${value}`
    case "id":
      return compare(order.id, op, Number(raw.replace(/^gid:\/\/shopify\/Order\//, "")))
    case "sku":
      return order.lineItems.some((l) => (l.sku ?? "").toLowerCase() === value)
    default:
      return true
  }
}

export const matchesSearch = (node: SearchNode, order: StoredOrder, now: number): boolean => {
  switch (node.kind) {
    case "all":
      return true
    case "and":
      return matchesSearch(node.left, order, now) && matchesSearch(node.right, order, now)
    case "or":
      return matchesSearch(node.left, order, now) || matchesSearch(node.right, order, now)
    case "not":
      return !matchesSearch(node.inner, order, now)
    case "term":
      return matchesTerm(order, node.field, node.op, node.value, now)
  }
}
