import { ACTION_LABELS, actionsFor } from "../domain/PersonAction.js"
import type { OrderStory } from "../pipeline/Explain.js"
import { seenOrderValue } from "../pipeline/PersonActions.js"
import type { StoredOrder } from "../repos/OrdersRepo.js"
import type { Shipment } from "../repos/ShipmentsRepo.js"
import { html, type Html } from "./Html.js"
import type { OrderLink } from "./OrderLinks.js"
import { NO_FIXES, type OrderFixes } from "../domain/OrderFix.js"
import { fixesPart } from "./FixView.js"
import { addressPart, type LineDesign, linesPart, moneyPart, packagesPart, type PodFacts, podPart } from "./OrderView.js"
import { externalLinks } from "./QueueView.js"
import type { SellerWords } from "./SellerWords.js"

const SECRET_KEY = /secret|token|password|passwd|authorization|api[-_]?key|client[-_]?key|signature|cookie|credential/i

/**
 * `value` as JSON would show it, with every field whose name says it holds a secret replaced:
 * payloads are shown, secrets never. A value with its own JSON form (`Money`, a `Date`) is read
 * through it, as `JSON.stringify` would, and a bare bigint becomes its digits, so the result
 * always stringifies.
 */
export const withoutSecrets = (value: unknown): unknown => {
  if (typeof value === "bigint") return value.toString()
  if (Array.isArray(value)) return value.map(withoutSecrets)
  if (value !== null && typeof value === "object") {
    const own = (value as { readonly toJSON?: unknown }).toJSON
    if (typeof own === "function") {
      const shown = (own as () => unknown).call(value)
      if (shown !== value) return withoutSecrets(shown)
    }
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

/** The POD service's warnings recorded on the order's events (a draft's create answer), each once. */
export const podWarningsOf = (eventData: ReadonlyArray<unknown>): ReadonlyArray<string> => [
  ...new Set(eventData.flatMap((data) => {
    const warnings = typeof data === "object" && data !== null ? (data as { readonly warnings?: unknown }).warnings : undefined
    return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === "string") : []
  }))
]

export interface StoryInput {
  readonly story: OrderStory
  readonly stored: StoredOrder
  readonly eventData: ReadonlyArray<unknown>
  readonly csrfToken: string
  readonly actionKey: string
  readonly links: ReadonlyArray<OrderLink>
  readonly words: SellerWords
  readonly shipments: ReadonlyArray<Shipment>
  /** The print files of each line (by line id), from the store's mapping table. */
  readonly designs: ReadonlyMap<string, ReadonlyArray<LineDesign>>
  /** What the POD service says now; null when there is nothing to ask it (no draft) or no client. */
  readonly pod: PodFacts | null
  /** What a person fixed of the order in podsync (issue 34); none when absent. */
  readonly fixes?: OrderFixes
}

/** An order's page: what it is, where it stands at the POD service, its packages, and its story with what a person may do. */
export const storyContent = (input: StoryInput): Html => {
  const { actionKey, csrfToken, eventData, links, stored, story, words } = input
  const actions = actionsFor(stored)
  const fixes = input.fixes ?? NO_FIXES
  return html`<h1>${story.name} <span class="pill">${story.state.replaceAll("_", " ")}</span></h1>
    <p class="muted" data-testid="reference">${
    words.store(stored.storeKey) === stored.storeKey ? "" : `${words.store(stored.storeKey)} \u00b7 `
  }${story.referenceId} \u00b7 ${stored.order.platform} \u00b7 placed ${words.time(stored.order.createdAt)}${
    stored.order.financialStatus === "paid" ? "" : ` \u00b7 ${stored.order.financialStatus.replaceAll("_", " ")} at the store`
  }${stored.order.cancelled ? " \u00b7 cancelled at the store" : ""}</p>
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
    ${linesPart(stored.order, input.designs, stored.plannedLines)}
    <div class="cards order-facts">
      ${addressPart(stored.order, fixes.address !== undefined)}
      ${
    podPart({
      podDraftId: story.podDraftId,
      podOrderId: story.podOrderId,
      podStatus: stored.podStatus,
      warnings: podWarningsOf(eventData),
      pod: input.pod
    })
  }
      ${moneyPart(stored.order, input.pod)}
    </div>
    ${fixesPart({ order: stored, fixes, csrfToken, actionKey, words })}
    ${packagesPart(input.shipments)}
    <h2>Story</h2>
    <ol class="timeline" data-testid="timeline">
      ${
    story.events.map((e, i) =>
      html`<li class=${e.actor.startsWith("console:") ? "person" : ""}>
        <div class="when"><time datetime=${e.at}>${words.time(e.at)}</time> \u00b7 ${words.actor(e.actor)}</div>
        <div><strong>${e.from === null ? "" : `${e.from.replaceAll("_", " ")} → `}${e.to.replaceAll("_", " ")}</strong> ${
        e.reason ?? ""
      }</div>
        ${folded("details", eventData[i])}
      </li>`
    )
  }
    </ol>
    <h2>Payloads</h2>
    ${folded("the store order, as podsync read it", stored.order)}
    ${folded("planned lines", stored.plannedLines.length > 0 ? stored.plannedLines : null)}
    ${folded("last error", stored.lastError)}`
}
