import { isOrderState, type OrderState } from "../domain/OrderState.js"
import { ACTION_LABELS, actionsFor, PERSON_ACTIONS } from "../domain/PersonAction.js"
import { actionFor } from "../observability/StatusReport.js"
import type { ActionOutcome } from "../pipeline/PersonActions.js"
import { seenOrderValue } from "../pipeline/PersonActions.js"
import type { WaitingOrder } from "../repos/AttentionRepo.js"
import { ageText, html, type Html } from "./Html.js"
import type { OrderLink, OrderLinks } from "./OrderLinks.js"

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
  order.state === "drafted"
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

export const outcomeList = (outcomes: ReadonlyArray<ActionOutcome>) => {
  const refused = outcomes.filter((o) => o.outcome === "refused")
  const done = outcomes.filter((o) => o.outcome !== "refused")
  return html`${
    done.length === 0 ? null : html`<div class="flash" role="status" data-testid="done">
      ${done.length} done<ul>${done.map((o) => html`<li>${o.referenceId ?? o.id}: ${o.message}</li>`)}</ul></div>`
  }${
    refused.length === 0 ? null : html`<div class="flash refused" role="alert" data-testid="refused">
      ${refused.length} refused<ul>${refused.map((o) => html`<li>${o.referenceId ?? o.id}: ${o.message}</li>`)}</ul></div>`
  }`
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
  readonly limit: number
  readonly links: OrderLinks
}): Html => {
  const groups = new Map<string, Array<WaitingOrder>>()
  for (const order of input.orders) {
    const key = reasonKeyOf(order)
    groups.set(key, [...(groups.get(key) ?? []), order])
  }
  const age = (order: WaitingOrder) => ageText((input.nowMs - order.updatedAt.getTime()) / 1000)
  return html`<h1>Needs a person</h1>
    ${outcomeList(input.outcomes)}
    <form method="get" action="/console/queue" class="filters">
      <label>Store <select name="store">
        <option value="">all stores</option>
        ${input.storeKeys.map((s) => html`<option value=${s} selected=${s === input.filter.store}>${s}</option>`)}
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
          <table>
            <thead><tr><th></th><th>order</th><th>store</th><th>waiting</th><th class="hide-narrow">what happened</th><th>actions</th></tr></thead>
            <tbody>${
            orders.map((order) =>
              html`<tr data-reference=${order.referenceId}>
                <td><input type="checkbox" name="sel" value=${seenOrderValue(order)} aria-label=${`select ${order.referenceId}`} /></td>
                <td><a href=${`/console/order?ref=${encodeURIComponent(order.referenceId)}`}>${order.name ?? order.referenceId}</a>
                  <div class="muted">${order.referenceId}</div>
                  ${externalLinks(input.links(order))}</td>
                <td>${order.storeKey}</td>
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
          </table>
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

/** "open at the store / at the POD service": in a new tab, telling the other site nothing of the console. */
export const externalLinks = (links: ReadonlyArray<OrderLink>): Html | null =>
  links.length === 0 ?
    null :
    html`<div class="links">${
      links.map((l) => html`<a href=${l.href} target="_blank" rel="noopener noreferrer">${l.label} \u2197</a> `)
    }</div>`
