/**
 * Fixing in place on an order's page (issue 34), pure: what a person fixed of the order in podsync
 * (a corrected address, a line's POD variant) with who and when, said against the store's copy
 * (unchanged), and the forms to fix it where the order's state allows.
 */
import type { NormalizedOrder, ShipTo } from "../domain/NormalizedOrder.js"
import { addressFixRefusal, type FixedOrder, type OrderFixes, podVariantInWords, variantFixRefusal } from "../domain/OrderFix.js"
import { html, type Html } from "./Html.js"
import type { SellerWords } from "./SellerWords.js"

export interface FixInput {
  readonly order: FixedOrder & { readonly id: number; readonly referenceId: string; readonly order: NormalizedOrder }
  readonly fixes: OrderFixes
  readonly csrfToken: string
  readonly actionKey: string
  readonly words: SellerWords
}

const hidden = (input: FixInput) =>
  html`<input type="hidden" name="_csrf" value=${input.csrfToken} />
    <input type="hidden" name="key" value=${input.actionKey} />
    <input type="hidden" name="id" value=${String(input.order.id)} />
    <input type="hidden" name="back" value=${input.order.referenceId} />`

/** The address form's fields, named as `ShipTo`'s (what the pipeline's address rules read). */
export const ADDRESS_FIELDS: ReadonlyArray<readonly [keyof ShipTo, string, boolean]> = [
  ["name", "Name", true],
  ["company", "Company", false],
  ["line1", "Address line 1", true],
  ["line2", "Address line 2", false],
  ["city", "City", true],
  ["regionCode", "State/province code", false],
  ["region", "State/province", false],
  ["postalCode", "Postal code", true],
  ["countryCode", "Country code (2 letters)", true],
  ["phone", "Phone", false]
]

const addressForm = (input: FixInput, current: ShipTo | null) =>
  html`<details class="fix" data-testid="fix-address" open=${input.order.state === "held" && input.order.order.shipTo === null}>
    <summary>Correct the shipping address for the POD draft</summary>
    <form method="post" action="/console/order/fix-address" class="fix-form">
      ${hidden(input)}
      ${
    ADDRESS_FIELDS.map(([field, label, required]) =>
      html`<label>${label} <input name=${field} value=${current?.[field] ?? ""} required=${required} maxlength="255" /></label>`
    )
  }
      <p class="muted">podsync keeps this address and drafts with it; the store's copy is not changed.</p>
      <button type="submit">Save the address</button>
    </form>
  </details>`

const variantForm = (input: FixInput) =>
  html`<details class="fix" data-testid="fix-variant">
    <summary>${
    input.order.state === "drafted" ? "Change a line's POD variant in the draft" : "Choose another POD variant for a line"
  }</summary>
    <form method="post" action="/console/order/fix-variant" class="fix-form">
      ${hidden(input)}
      <label>Line <select name="line">${
    input.order.order.lines.map((line) =>
      html`<option value=${line.lineId}>${line.title}${line.variantTitle ? ` / ${line.variantTitle}` : ""}${
        line.sku ? ` (${line.sku})` : ""
      }</option>`
    )
  }</select></label>
      <label>POD variant id (or legacy id) <input name="variant" required maxlength="100" /></label>
      <p class="muted">${
    input.order.state === "drafted"
      ? "The draft's line is updated through the POD service's draft update (until it is checked out); the line keeps its designs."
      : "Only this order: the mapping file is not changed. The line keeps its mapping row's designs."
  }</p>
      <button type="submit">Use this variant</button>
    </form>
  </details>`

/** What was fixed (who, when), with the store's copy beside it; then the forms the state allows. */
export const fixesPart = (input: FixInput): Html | null => {
  const { fixes, order, words } = input
  const address = fixes.address
  const canAddress = addressFixRefusal(order) === undefined
  const canVariant = variantFixRefusal(order) === undefined && order.order.lines.length > 0
  if (address === undefined && fixes.variants.length === 0 && !canAddress && !canVariant) return null
  const lineName = (lineId: string) => {
    const line = order.order.lines.find((l) => l.lineId === lineId)
    return line === undefined ? lineId : `${line.title}${line.variantTitle ? ` / ${line.variantTitle}` : ""}`
  }
  return html`<div class="card fixes" data-testid="fixes"><h2>Fixed in podsync</h2>
    ${
    address === undefined && fixes.variants.length === 0 ? html`<p class="muted">Nothing fixed for this order.</p>` : html`<ul>
      ${
      address === undefined ?
        null :
        html`<li data-testid="fixed-address"><strong>Shipping address</strong> corrected by ${words.actor(address.by)} (${
          words.time(address.at)
        }): <address>${
          [
            address.shipTo.name,
            address.shipTo.company,
            address.shipTo.line1,
            address.shipTo.line2,
            [
              address.shipTo.postalCode,
              address.shipTo.city
            ].filter(Boolean).join(" "),
            [address.shipTo.regionCode ?? address.shipTo.region, address.shipTo.countryCode].filter(Boolean).join(", ")
          ]
            .filter((l) => l !== undefined && l !== "")
            .map((l) => html`${l}<br />`)
        }</address>
          <span class="muted">The POD draft uses this address. The store's copy is unchanged (shown under "Ships to").</span></li>`
    }
      ${
      fixes.variants.map((v) =>
        html`<li data-testid="fixed-variant"><strong>${lineName(v.lineId)}</strong>: ${podVariantInWords(v.pod)}, chosen by ${
          words.actor(v.by)
        } (${words.time(v.at)}) <span class="muted">instead of its mapping row's; the mapping file is unchanged.</span></li>`
      )
    }
    </ul>`
  }
    ${canAddress ? addressForm(input, address?.shipTo ?? order.order.shipTo) : null}
    ${canVariant ? variantForm(input) : null}
  </div>`
}
