/**
 * The console's list of all orders (issue 33), pure: a search and filter form sent by GET (a
 * reload or a shared link shows the same list), the matching orders newest first, and links to
 * the newer and older pages. Each order links to its page.
 */
import * as Money from "../domain/Money.js"
import { ORDER_STATES, type OrderState } from "../domain/OrderState.js"
import type { ListCursor, ListedOrder, OrderListPage } from "../repos/OrderListRepo.js"
import { html } from "./Html.js"

/** What the form asked for, as typed (dates as YYYY-MM-DD days in the console's time zone). */
export interface OrderListRequest {
  readonly q?: string | undefined
  readonly state?: OrderState | undefined
  readonly store?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** `2026-11-29T10:00:00.123456Z_42`: a row's exact created_at and id, as a page link carries it. */
export const cursorParam = (order: Pick<ListedOrder, "cursorAt" | "id">) => `${order.cursorAt}_${order.id}`

export const cursorOf = (direction: ListCursor["direction"], value: string | undefined): ListCursor | undefined => {
  const match = value === undefined ? null : /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z)_(\d{1,15})$/.exec(value)
  return match === null || match[1] === undefined || match[2] === undefined
    ? undefined
    : { direction, createdAt: match[1], id: Number(match[2]) }
}

export const DAY = /^\d{4}-\d\d-\d\d$/

const href = (request: OrderListRequest, extra: Record<string, string> = {}) => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries({ ...request, ...extra })) if (value !== undefined && value !== "") params.set(key, value)
  const text = params.toString()
  return text === "" ? "/console/orders" : `/console/orders?${text}`
}

/** "2026-11-29 14:05" in the console's time zone. */
export const dateTimeText = (at: Date, timeZone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23"
    }).formatToParts(at).map((p) => [p.type, p.value])
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

const stateText = (state: string) => state.replaceAll("_", " ")

const orderRow = (order: ListedOrder, timeZone: string) =>
  html`<tr>
    <td><a href=${`/console/order?ref=${encodeURIComponent(order.referenceId)}`}>${order.name ?? order.referenceId}</a>
      <div class="muted">${order.referenceId}</div></td>
    <td class="wrap">${order.buyer ?? ""}${order.email === null ? null : html`<div class="muted">${order.email}</div>`}</td>
    <td class="wrap">${order.skus.join(", ")}</td>
    <td><span class="pill">${stateText(order.state)}</span></td>
    <td class="num">${order.total === null ? "" : Money.format(order.total)}</td>
    <td>${dateTimeText(order.createdAt, timeZone)}</td>
    <td>${order.podOrderId ?? order.podDraftId ?? ""}${
    order.podOrderId !== null && order.podDraftId !== null ? html`<div class="muted">draft ${order.podDraftId}</div>` : null
  }</td>
  </tr>`

export const orderListContent = (input: {
  readonly request: OrderListRequest
  readonly page: OrderListPage
  readonly storeKeys: ReadonlyArray<string>
  readonly timeZone: string
  /** What the seller calls a store (reports.storeNames); default its key. */
  readonly storeName?: ((storeKey: string) => string) | undefined
  /** A date the form could not read, said back. */
  readonly problem?: string | undefined
}) => {
  const { page, request } = input
  const first = page.orders[0]
  const last = page.orders.at(-1)
  const count = `${page.matching.toLocaleString("en-US")}${page.countCapped ? "+" : ""} order${page.matching === 1 ? "" : "s"}`
  return html`
    <h1>All orders</h1>
    <form method="get" action="/console/orders" class="filters" role="search">
      <label>Search <input type="search" name="q" value=${request.q ?? ""} placeholder="#1001, buyer, email, SKU, id" /></label>
      <label>State <select name="state">
        <option value="">every state</option>
        ${ORDER_STATES.map((s) => html`<option value=${s} selected=${s === request.state}>${stateText(s)}</option>`)}
      </select></label>
      <label>Store <select name="store">
        <option value="">every store</option>
        ${input.storeKeys.map((s) => html`<option value=${s} selected=${s === request.store}>${input.storeName?.(s) ?? s}</option>`)}
      </select></label>
      <label>Pulled from <input type="date" name="from" value=${request.from ?? ""} /></label>
      <label>to <input type="date" name="to" value=${request.to ?? ""} /></label>
      <button type="submit">Search</button>
      <a href="/console/orders">Clear</a>
    </form>
    ${input.problem === undefined ? null : html`<p class="flash refused" role="alert">${input.problem}</p>`}
    <p class="muted" data-testid="matching">${count}${
    request.q === undefined
      ? null
      : html` with every word of \u201c${request.q}\u201d (whole words: an order number, a buyer's name, an email, a SKU, an id)`
  }</p>
    ${
    page.orders.length === 0 ? html`<p class="muted">No order matches.</p>` : html`
      <div class="scroll"><table>
        <thead><tr><th>Order</th><th>Buyer</th><th>SKUs</th><th>State</th><th class="num">Total</th><th>Pulled</th><th>POD</th></tr></thead>
        <tbody>${page.orders.map((o) => orderRow(o, input.timeZone))}</tbody>
      </table></div>`
  }
    <nav class="pager" aria-label="pages">
      ${page.newer ? html`<a href=${href(request)}>Newest</a>` : null}
      ${
    page.newer && first !== undefined ? html`<a href=${href(request, { after: cursorParam(first) })} rel="prev">\u2190 Newer</a>` : null
  }
      ${page.older && last !== undefined ? html`<a href=${href(request, { before: cursorParam(last) })} rel="next">Older \u2192</a>` : null}
    </nav>`
}
