import { ACTION_LABELS, actionsFor } from "../domain/PersonAction.js"
import type { OrderStory } from "../pipeline/Explain.js"
import { seenOrderValue } from "../pipeline/PersonActions.js"
import type { StoredOrder } from "../repos/OrdersRepo.js"
import { html, type Html } from "./Html.js"
import type { OrderLink } from "./OrderLinks.js"
import { externalLinks } from "./QueueView.js"

const SECRET_KEY = /secret|token|password|passwd|authorization|api[-_]?key|client[-_]?key|signature|cookie|credential/i

/** `value` with every field whose name says it holds a secret replaced: payloads are shown, secrets never. */
export const withoutSecrets = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutSecrets)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, SECRET_KEY.test(key) ? "(hidden)" : withoutSecrets(item)])
    )
  }
  return value
}

const folded = (summary: string, value: unknown) =>
  value === null || value === undefined ?
    null :
    html`<details><summary>${summary}</summary><pre>${JSON.stringify(withoutSecrets(value), null, 2)}</pre></details>`

export interface StoryInput {
  readonly story: OrderStory
  readonly stored: StoredOrder
  readonly eventData: ReadonlyArray<unknown>
  readonly csrfToken: string
  readonly actionKey: string
  readonly links: ReadonlyArray<OrderLink>
}

export const storyContent = ({ story, stored, eventData, csrfToken, actionKey, links }: StoryInput): Html => {
  const actions = actionsFor(stored)
  return html`<h1>${story.name} <span class="pill">${story.state.replaceAll("_", " ")}</span></h1>
    <p class="muted" data-testid="reference">${story.referenceId}${story.podDraftId ? ` · POD draft ${story.podDraftId}` : ""}${
    story.podOrderId ? ` · POD order ${story.podOrderId}` : ""
  }</p>
    ${externalLinks(links)}
    ${story.heldMessage ? html`<p class="flash refused">${story.heldReason}: ${story.heldMessage}</p>` : null}
    ${
    actions.length === 0 ? null : html`<form method="post" action="/console/queue/act" class="actions">
      <input type="hidden" name="_csrf" value=${csrfToken} />
      <input type="hidden" name="key" value=${actionKey} />
      <input type="hidden" name="back" value=${story.referenceId} />
      ${actions.map((a) => html`<button type="submit" name="one" value=${`${a}|${seenOrderValue(stored)}`}>${ACTION_LABELS[a]}</button>`)}
    </form>`
  }
    <h2>Story</h2>
    <ol class="timeline" data-testid="timeline">
      ${
    story.events.map((e, i) =>
      html`<li class=${e.actor.startsWith("console:") ? "person" : ""}>
        <div class="when">${e.at.replace("T", " ").slice(0, 19)} \u00b7 ${e.actor}</div>
        <div><strong>${e.from === null ? "" : `${e.from.replaceAll("_", " ")} → `}${e.to.replaceAll("_", " ")}</strong> ${
        e.reason ?? ""
      }</div>
        ${folded("details", eventData[i])}
      </li>`
    )
  }
    </ol>
    ${
    story.shipments.length === 0 ? null : html`<h2>Shipments</h2><table>
      <thead><tr><th>tracking</th><th>carrier</th><th>pushed to the store</th></tr></thead>
      <tbody>${
      story.shipments.map((s) => html`<tr><td>${s.trackingNo}</td><td>${s.carrier ?? ""}</td><td>${s.pushState}</td></tr>`)
    }</tbody>
    </table>`
  }
    <h2>Payloads</h2>
    ${folded("the store order, as podsync read it", stored.order)}
    ${folded("planned lines", stored.plannedLines.length > 0 ? stored.plannedLines : null)}
    ${folded("last error", stored.lastError)}`
}
