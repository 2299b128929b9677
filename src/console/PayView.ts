/**
 * The console's "What to pay" (issue 33), pure: the payments blocked by a failed charge, the
 * drafts waiting for checkout and the POD orders waiting for payment, oldest first, each with
 * its total at the POD service and a link there, and their sums per currency (two currencies
 * are never added together).
 */
import * as Money from "../domain/Money.js"
import type { OrderToPay, PayKind } from "../repos/OrderListRepo.js"
import { ageText, html } from "./Html.js"
import type { OrderLinks } from "./OrderLinks.js"

export interface PayRow extends OrderToPay {
  /** What the POD service charges (its draft's or order's `order_total`, as the report counts POD cost); null: not known. */
  readonly total: Money.Money | null
}

/** One sum per currency, by currency code; amounts not known are left out (the page says how many). */
export const sumsByCurrency = (amounts: ReadonlyArray<Money.Money | null>): ReadonlyArray<Money.Money> => {
  const sums = new Map<string, bigint>()
  for (const amount of amounts) {
    if (amount !== null) sums.set(amount.currency, (sums.get(amount.currency) ?? 0n) + amount.totalNanos)
  }
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([currency, nanos]) => Money.fromNanos(currency, nanos))
}

const sumText = (rows: ReadonlyArray<PayRow>) => {
  const sums = sumsByCurrency(rows.map((r) => r.total))
  const unknown = rows.filter((r) => r.total === null).length
  const parts = sums.map((s) => Money.format(s))
  if (unknown > 0) parts.push(`${unknown} without a known total`)
  return parts.length === 0 ? "nothing" : parts.join(" + ")
}

const SECTIONS: ReadonlyArray<{ readonly kind: PayKind; readonly title: string; readonly what: string }> = [
  {
    kind: "payment_failed",
    title: "Blocked: the payment failed",
    what:
      "The POD service could not charge for these orders, and makes none of them until it can: fix the payment method at the service, then pay them there."
  },
  {
    kind: "checkout",
    title: "Drafts to check out",
    what: "Drafts podsync made and nobody has checked out yet: the POD service makes nothing until they are checked out (paid) there."
  },
  {
    kind: "awaiting_payment",
    title: "Orders waiting for payment",
    what: "Checked out at the POD service, and waiting there for the payment to go through."
  }
]

const podIdOf = (row: PayRow) => (row.kind === "checkout" ? row.podDraftId : row.podOrderId ?? row.podDraftId)

export const payContent = (input: {
  readonly rows: ReadonlyArray<PayRow>
  /** How many wait in all (more than listed: only the oldest are). */
  readonly waiting: number
  /** Why totals are missing (the POD service could not be read), said once. */
  readonly totalsProblem: string | null
  /** What the seller calls a store (reports.storeNames); default its key. */
  readonly storeName?: ((storeKey: string) => string) | undefined
  readonly links: OrderLinks
  readonly nowMs: number
}) => {
  const { rows } = input
  return html`
    <h1>What to pay</h1>
    <p class="muted">Totals are what the POD service charges (its <code>order_total</code>, the POD cost the report counts), read from the service now.</p>
    ${
    input.totalsProblem === null ? null : html`<p class="flash refused" role="alert">Totals could not be read: ${input.totalsProblem}</p>`
  }
    ${
    input.waiting > rows.length
      ? html`<p class="flash refused" role="status">The oldest ${rows.length} of ${input.waiting} are listed; the sums are theirs.</p>`
      : null
  }
    <div class="cards">
      ${
    SECTIONS.map(({ kind, title }) => {
      const of = rows.filter((r) => r.kind === kind)
      return html`<div class=${`card${kind === "payment_failed" && of.length > 0 ? " attention" : ""}`} data-testid=${`sum-${kind}`}>
          <div class="n">${of.length}</div><div class="l">${title}</div><div>${sumText(of)}</div></div>`
    })
  }
    </div>
    ${
    SECTIONS.map(({ kind, title, what }) => {
      const of = rows.filter((r) => r.kind === kind)
      if (of.length === 0) return null
      return html`<section class="group" data-testid=${`pay-${kind}`}>
          <h2>${title} <span class="what">${of.length}, ${sumText(of)}</span></h2>
          <p class="muted">${what}</p>
          <div class="scroll"><table>
            <thead><tr><th>Order</th><th class="num">Total</th><th></th><th>Pulled</th><th>POD</th><th>Store</th></tr></thead>
            <tbody>${
        of.map((row) =>
          html`<tr>
                <td><a href=${`/console/order?ref=${encodeURIComponent(row.referenceId)}`}>${row.name ?? row.referenceId}</a></td>
                <td class="num">${row.total === null ? "" : Money.format(row.total)}</td>
                <td>${
            input.links({ referenceId: row.referenceId, podDraftId: row.podDraftId, podOrderId: row.podOrderId }).map((l) =>
              html`<a href=${l.href} rel="noopener noreferrer" target="_blank">${l.label}</a> `
            )
          }</td>
                <td>${ageText((input.nowMs - row.createdAt.getTime()) / 1000)} ago</td>
                <td>${podIdOf(row) ?? ""}</td>
                <td>${input.storeName?.(row.storeKey) ?? row.storeKey}</td>
              </tr>`
        )
      }</tbody>
          </table></div>
        </section>`
    })
  }
    ${rows.length === 0 ? html`<p class="muted">Nothing waits to be paid at the POD service.</p>` : null}`
}
