import { Schema } from "effect"
import { isOrderState, type OrderState } from "../domain/OrderState.js"
import { ACTION_LABELS, actionsFor, PERSON_ACTIONS } from "../domain/PersonAction.js"
import { actionFor } from "../observability/StatusReport.js"
import type { ActionOutcome } from "../pipeline/PersonActions.js"
import { seenOrderValue } from "../pipeline/PersonActions.js"
import type { WaitingOrder } from "../repos/AttentionRepo.js"
import { ageText, html, type Html } from "./Html.js"
import type { OrderLink, OrderLinks } from "./OrderLinks.js"
import { type SellerWords, sellerWordsOf } from "./SellerWords.js"

/** Why an order is in the queue, as a key the filter and the grouping use: `held:unmatched`, `failed`, `not_checked_out`. */
export const reasonKeyOf = (
  order: { readonly state: OrderState; readonly heldReason?: string | null; readonly reason?: string | null }
) => {
  const reason = order.heldReason ?? order.reason ?? null
  return order.state === "drafted"
    ? "not_checked_out"
    : order.state === "held"
    ? `held:${reason ?? "unknown"}`
    : order.state === "pod_on_hold"
    ? `pod_on_hold:${reason ?? "at_the_service"}`
    : order.state
}

/** The states and held reason a reason key stands for (for the query). */
export const filterOfReasonKey = (key: string): { state?: OrderState; heldReason?: string } => {
  if (key === "not_checked_out") return { state: "drafted" }
  const [state, reason] = key.split(":")
  if (state === undefined || !isOrderState(state)) return {}
  return reason === undefined || reason === "unknown" || reason === "at_the_service" ? { state } : { state, heldReason: reason }
}

/** What to do, in the words `podsync status` and the report use. */
export const actionTextOf = (order: WaitingOrder) =>
  order.state === "cancel_pending"
    ? "the buyer cancelled after the draft: cancel the POD order at the POD service (the API has no cancel), then Mark handled"
    : order.state === "drafted"
    ? `draft ${order.podDraftId ?? "(id not recorded)"} is not checked out: check it out (pay for it) at the POD service, or delete it`
    : order.state === "in_doubt"
    ? "podsync could not tell whether the draft reached the POD service: it looks it up before any retry; Retry now looks now"
    : actionFor(order.state, order.heldReason)

/** `held:out_of_stock` → "held: out of stock". */
export const reasonTitle = (key: string) => key.replaceAll("_", " ").replace(":", ": ")

export interface QueueFilter {
  readonly store?: string | undefined
  readonly reason?: string | undefined
}

/** What an action did, as it travels from the POST to the page it redirects to (ConsoleFlash). */
export const OutcomesFlash = Schema.Struct({
  outcomes: Schema.Array(Schema.Struct({
    id: Schema.Number,
    referenceId: Schema.NullOr(Schema.String),
    outcome: Schema.Literal("done", "already_done", "refused"),
    message: Schema.String
  })),
  /** Outcomes left out to fit the cookie, refused first kept. */
  more: Schema.Number
})
export type OutcomesFlash = typeof OutcomesFlash.Type

/** The outcomes to carry: refusals first (what a person must look at), then what was done. */
export const outcomesFlashOf = (outcomes: ReadonlyArray<ActionOutcome>) => [
  ...outcomes.filter((o) => o.outcome === "refused"),
  ...outcomes.filter((o) => o.outcome !== "refused")
]

export const outcomeList = (outcomes: ReadonlyArray<ActionOutcome>, more = 0) => {
  const refused = outcomes.filter((o) => o.outcome === "refused")
  const done = outcomes.filter((o) => o.outcome !== "refused")
  return html`${
    done.length === 0 ? null : html`<div class="flash" role="status" data-testid="done">
      ${done.length} done<ul>${done.map((o) => html`<li>${o.referenceId ?? o.id}: ${o.message}</li>`)}</ul></div>`
  }${
    refused.length === 0 ? null : html`<div class="flash refused" role="alert" data-testid="refused">
      ${refused.length} refused<ul>${refused.map((o) => html`<li>${o.referenceId ?? o.id}: ${o.message}</li>`)}</ul></div>`
  }${more === 0 ? null : html`<p class="muted">and ${more} more outcomes (see each order's story)</p>`}`
}

export const queueContent = (input: {
  readonly orders: ReadonlyArray<WaitingOrder>
  readonly storeKeys: ReadonlyArray<string>
  readonly reasonKeys: ReadonlyArray<string>
  readonly filter: QueueFilter
  readonly nowMs: number
  readonly csrfToken: string
  readonly actionKey: string
  readonly outcomes: ReadonlyArray<ActionOutcome>
  /** Outcomes the redirect could not carry. */
  readonly moreOutcomes?: number
  readonly limit: number
  readonly links: OrderLinks
  /** Orders held because the store has not been paid, per store: counted apart, they wait for the buyer. */
  readonly awaitingPayment?: ReadonlyArray<{ readonly storeKey: string; readonly count: number }>
  readonly words?: SellerWords
}): Html => {
  const words = input.words ?? sellerWordsOf()
  const groups = new Map<string, Array<WaitingOrder>>()
  for (const order of input.orders) {
    const key = reasonKeyOf(order)
    groups.set(key, [...(groups.get(key) ?? []), order])
  }
  const age = (order: WaitingOrder) => ageText(Math.max(0, input.nowMs - order.waitingSince.getTime()) / 1000)
  const unpaid = (input.awaitingPayment ?? []).filter((u) => input.filter.store === undefined || u.storeKey === input.filter.store)
  const unpaidCount = unpaid.reduce((n, u) => n + u.count, 0)
  return html`<h1>Needs a person</h1>
    ${outcomeList(input.outcomes, input.moreOutcomes ?? 0)}
    ${
    unpaidCount === 0 || input.filter.reason === UNPAID_KEY ? null : html`<p class="muted" data-testid="awaiting-payment">
      Not counted here: <a href=${`/console/queue?reason=${UNPAID_KEY}`}>${unpaidCount} ${
      unpaidCount === 1 ? "order waits" : "orders wait"
    } for payment at the store</a>; nothing to do, podsync drafts ${unpaidCount === 1 ? "it" : "them"} once paid.</p>`
  }
    <form method="get" action="/console/queue" class="filters">
      <label>Store <select name="store">
        <option value="">all stores</option>
        ${input.storeKeys.map((s) => html`<option value=${s} selected=${s === input.filter.store}>${words.store(s)}</option>`)}
      </select></label>
      <label>Reason <select name="reason">
        <option value="">every reason</option>
        ${input.reasonKeys.map((r) => html`<option value=${r} selected=${r === input.filter.reason}>${reasonTitle(r)}</option>`)}
      </select></label>
      <button type="submit" class="secondary">Filter</button>
    </form>
    ${
    input.orders.length === 0
      ? html`<p class="muted" data-testid="empty">Nothing needs a person${
        input.filter.store || input.filter.reason ? " with this filter" : ""
      }.</p>`
      : html`<form method="post" action="/console/queue/act" data-testid="queue">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="key" value=${input.actionKey} />
      <input type="hidden" name="store" value=${input.filter.store ?? ""} />
      <input type="hidden" name="reason" value=${input.filter.reason ?? ""} />
      ${
        [...groups.entries()].map(([key, orders]) => {
          const [first] = orders
          return html`<section class="group" data-reason=${key}>
          <h2>${reasonTitle(key)} <span class="pill warn">${orders.length}</span>
            <span class="what">${first === undefined ? "" : actionTextOf(first)}</span></h2>
          <div class="table-wrap"><table>
            <thead><tr><th></th><th>order</th><th>store</th><th>waiting</th><th class="hide-narrow">what happened</th><th>actions</th></tr></thead>
            <tbody>${
            orders.map((order) =>
              html`<tr data-reference=${order.referenceId}>
                <td><input type="checkbox" name="sel" value=${seenOrderValue(order)} aria-label=${`select ${order.referenceId}`} /></td>
                <td><a href=${`/console/order?ref=${encodeURIComponent(order.referenceId)}`}>${order.name ?? order.referenceId}</a>
                  <div class="muted">${order.referenceId}</div>
                  ${podPart(order)}
                  ${externalLinks(input.links(order))}</td>
                <td>${words.store(order.storeKey)}</td>
                <td>${age(order)}</td>
                <td class="hide-narrow">${order.message ?? order.state.replaceAll("_", " ")}</td>
                <td><div class="actions">${
                actionsFor(order).map((action) =>
                  html`<button type="submit" name="one" value=${`${action}|${seenOrderValue(order)}`}>${ACTION_LABELS[action]}</button>`
                )
              }</div></td>
              </tr>`
            )
          }</tbody>
          </table></div>
        </section>`
        })
      }
      <div class="bulk">
        <span class="muted">Selected orders:</span>
        ${
        PERSON_ACTIONS.map((action) =>
          html`<button type="submit" name="bulk" value=${action} class="secondary">${ACTION_LABELS[action]}</button>`
        )
      }
      </div>
      ${
        input.orders.length >= input.limit
          ? html`<p class="muted">The ${input.limit} longest-waiting are shown: filter to see others.</p>`
          : null
      }
    </form>`
  }`
}

const UNPAID_KEY = "held:unpaid"

/**
 * What a person needs of the POD service on the row itself (shown at every width): the POD order
 * to cancel there for a pending cancel, and why the service holds an order on hold.
 */
const podPart = (order: WaitingOrder): Html | null => {
  const podId = order.podOrderId ?? order.podDraftId
  switch (order.state) {
    case "cancel_pending":
      return html`<div class="pod" data-testid="pod-order">${order.podOrderId === null ? "POD draft" : "POD order"} <strong>${
        podId ?? "(id not recorded)"
      }</strong>: cancel it at the POD service</div>`
    case "pod_on_hold":
      return html`<div class="pod" data-testid="pod-hold">${podId === null ? null : html`POD order <strong>${podId}</strong>: `}${
        order.message ?? "on hold at the POD service (it gave no reason)"
      }</div>`
    default:
      return null
  }
}

/** "open at the store / at the POD service": in a new tab, telling the other site nothing of the console. */
export const externalLinks = (links: ReadonlyArray<OrderLink>): Html | null =>
  links.length === 0 ?
    null :
    html`<div class="links">${
      links.map((l) => html`<a href=${l.href} target="_blank" rel="noopener noreferrer">${l.label} \u2197</a> `)
    }</div>`
