/**
 * The parts of an order's page that describe the order itself, pure: its lines with their designs,
 * where it ships, the POD draft and order, cost against price, and its packages. The story and the
 * actions around them are StoryView's.
 */
import * as Money from "../domain/Money.js"
import type { NormalizedLine, NormalizedOrder, ShipTo } from "../domain/NormalizedOrder.js"
import { findRow, type MappingTable } from "../domain/MappingTable.js"
import type { Shipment } from "../repos/ShipmentsRepo.js"
import { html, type Html } from "./Html.js"

/** One print file of a line: where it goes on the product, and the file. */
export interface LineDesign {
  readonly location: string
  readonly url: string
}

/** What the POD service says of the order's draft and order now (read when the page is opened). */
export interface PodFacts {
  readonly draft?: { readonly status?: string | undefined; readonly total?: Money.Money | undefined } | undefined
  readonly order?:
    | {
      readonly status?: string | undefined
      readonly paymentStatus?: string | undefined
      readonly total?: Money.Money | undefined
    }
    | undefined
  /** Why the service could not be read (the page shows what podsync stored instead). */
  readonly error?: string | undefined
}

/** The print files of a line by its mapping row: a fixed file, or the one the buyer's attribute names. */
export const designsOfLine = (table: MappingTable, line: NormalizedLine): ReadonlyArray<LineDesign> =>
  (findRow(table, line)?.prints ?? []).flatMap((print) => {
    const url = print.source._tag === "Url"
      ? print.source.url
      : line.attributes.find((a) => a.key === (print.source as { readonly name: string }).name)?.value
    const location = print.location.replace("PRINT_LOCATION_CODE_", "").toLowerCase().replaceAll("_", " ")
    return url === undefined || url.trim() === "" ? [] : [{ location, url: url.trim() }]
  })

/** `VENDOR_ORDER_DRAFT_STATUS_DRAFT` → "draft". */
export const podStatusInWords = (status: string | null | undefined): string =>
  status === null || status === undefined || status === ""
    ? "unknown"
    : status.replace(/^VENDOR_ORDER_(?:DRAFT_|PAYMENT_)?STATUS_/, "").toLowerCase().replaceAll("_", " ")

const money = (amount: Money.Money | undefined | null) => (amount === undefined || amount === null ? "–" : Money.format(amount))

const isWebAddress = (url: string) => /^https?:\/\//i.test(url)

const thumbnail = (design: LineDesign) =>
  isWebAddress(design.url)
    ? html`<a class="design" href=${design.url} target="_blank" rel="noopener noreferrer" title=${design.url}>
        <img src=${design.url} alt=${`${design.location} design`} loading="lazy" referrerpolicy="no-referrer" width="64" height="64" />
        <span>${design.location}</span></a>`
    : html`<span class="design muted">${design.location}: ${design.url}</span>`

export const linesPart = (
  order: NormalizedOrder,
  designs: ReadonlyMap<string, ReadonlyArray<LineDesign>>,
  planned: ReadonlyArray<{ readonly lineId: string; readonly quantity: number }>
): Html =>
  html`<h2>Lines</h2>
    <div class="scroll"><table data-testid="lines">
      <thead><tr><th>product</th><th>variant</th><th class="num">quantity</th><th class="num">to the POD</th><th>designs</th></tr></thead>
      <tbody>${
    order.lines.map((line) => {
      const drafted = planned.find((p) => p.lineId === line.lineId)?.quantity
      const lineDesigns = designs.get(line.lineId) ?? []
      return html`<tr data-line=${line.lineId}>
        <td>${line.title}${
        line.attributes.length === 0 ?
          null :
          html`<ul class="attributes">${line.attributes.map((a) => html`<li><span class="muted">${a.key}:</span> ${a.value}</li>`)}</ul>`
      }</td>
        <td>${line.variantTitle ?? ""}<div class="muted">${line.sku ? `SKU ${line.sku}` : "no SKU"}</div></td>
        <td class="num">${line.currentQuantity === line.quantity ? line.quantity : `${line.currentQuantity} (of ${line.quantity})`}</td>
        <td class="num">${drafted ?? "–"}</td>
        <td><div class="designs">${
        lineDesigns.length === 0 ? html`<span class="muted">none mapped</span>` : lineDesigns.map(thumbnail)
      }</div></td>
      </tr>`
    })
  }</tbody>
    </table></div>`

const addressLines = (to: ShipTo): ReadonlyArray<string> =>
  [
    to.name,
    to.company,
    to.line1,
    to.line2,
    [to.postalCode, to.city].filter((p) => p !== undefined && p !== "").join(" "),
    [to.region, to.country ?? to.countryCode].filter((p) => p !== undefined && p !== "").join(", "),
    to.phone
  ].filter((l): l is string => l !== undefined && l !== "")

/** `corrected`: a person corrected the address in podsync; this is the store's copy, unchanged. */
export const addressPart = (order: NormalizedOrder, corrected = false): Html =>
  html`<div class="card" data-testid="address"><h2>Ships to</h2>${
    corrected
      ? html`<p class="pill warn" data-testid="store-copy">The store's copy, unchanged: the POD draft uses the corrected address below.</p>`
      : null
  }${
    order.shipTo === null
      ? html`<p class="muted">No shipping address.</p>`
      : html`<address>${addressLines(order.shipTo).map((l) => html`${l}<br />`)}</address>`
  }${order.email ? html`<div class="muted">${order.email}</div>` : null}${
    order.shippingMethod ? html`<div class="muted">Shipping: ${order.shippingMethod.title}</div>` : null
  }${order.note ? html`<p class="note"><span class="muted">Note:</span> ${order.note}</p>` : null}</div>`

export interface PodPartInput {
  readonly podDraftId: string | null
  readonly podOrderId: string | null
  readonly podStatus: string | null
  readonly warnings: ReadonlyArray<string>
  readonly pod: PodFacts | null
}

export const podPart = ({ pod, podDraftId, podOrderId, podStatus, warnings }: PodPartInput): Html =>
  html`<div class="card" data-testid="pod"><h2>At the POD service</h2>
    ${
    podDraftId === null && podOrderId === null
      ? html`<p class="muted">No draft yet.</p>`
      : html`<dl>
      ${
        podDraftId === null ?
          null :
          html`<dt>Draft</dt><dd>${podDraftId} <span class="pill">${
            podStatusInWords(pod?.draft?.status ?? (podOrderId === null ? podStatus : null) ?? "")
          }</span></dd>`
      }
      ${
        podOrderId === null ?
          null :
          html`<dt>Order</dt><dd>${podOrderId} <span class="pill">${podStatusInWords(pod?.order?.status ?? podStatus)}</span>${
            pod?.order?.paymentStatus ? html` <span class="pill">${`payment ${podStatusInWords(pod.order.paymentStatus)}`}</span>` : null
          }</dd>`
      }
    </dl>`
  }
    ${
    warnings.length === 0 ?
      null :
      html`<ul class="warnings" data-testid="pod-warnings">${warnings.map((w) => html`<li class="pill warn">${w}</li>`)}</ul>`
  }
    ${
    pod?.error ? html`<p class="muted">The POD service could not be read now (${pod.error}): statuses as podsync last saw them.</p>` : null
  }
  </div>`

/** Price the buyer paid, against what the POD service charges; the margin when both are in one currency. */
export const moneyPart = (order: NormalizedOrder, pod: PodFacts | null): Html => {
  const price = order.total
  const cost = pod?.order?.total ?? pod?.draft?.total
  const costLabel = pod?.order?.total !== undefined ? "POD cost (order total)" : "POD cost (draft total, not yet paid)"
  const margin = price !== undefined && cost !== undefined && price.currency === cost.currency ? Money.subtract(price, cost) : undefined
  return html`<div class="card" data-testid="money"><h2>Cost against price</h2><dl>
    <dt>Buyer paid</dt><dd>${price === undefined ? html`<span class="muted">not given by the store</span>` : money(price)}</dd>
    <dt>${cost === undefined ? "POD cost" : costLabel}</dt><dd>${
    cost === undefined ? html`<span class="muted">not known${pod === null ? " (no POD draft yet)" : ""}</span>` : money(cost)
  }</dd>
    ${
    margin === undefined
      ? price !== undefined && cost !== undefined
        ? html`<dt>Margin</dt><dd class="muted">${price.currency} against ${cost.currency}: not comparable here</dd>`
        : null
      : html`<dt>Margin</dt><dd class=${margin._tag === "Right" && Money.isNegative(margin.right) ? "bad" : undefined}>${
        margin._tag === "Right" ? money(margin.right) : "–"
      }</dd>`
  }
  </dl></div>`
}

// Where a carrier shows a tracking number when the POD service gave no link.
const CARRIER_PAGES: ReadonlyArray<readonly [RegExp, (n: string) => string]> = [
  [/usps/i, (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`],
  [/ups/i, (n) => `https://www.ups.com/track?tracknum=${n}`],
  [/fedex/i, (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`],
  [/dhl/i, (n) => `https://www.dhl.com/global-en/home/tracking.html?tracking-id=${n}`]
]

export const trackingLinkOf = (shipment: Pick<Shipment, "trackingNo" | "carrier" | "trackingUrl">): string | null => {
  if (shipment.trackingUrl !== null && isWebAddress(shipment.trackingUrl)) return shipment.trackingUrl
  const page = CARRIER_PAGES.find(([carrier]) => carrier.test(shipment.carrier ?? ""))
  return page === undefined ? null : page[1](encodeURIComponent(shipment.trackingNo))
}

export const packagesPart = (shipments: ReadonlyArray<Shipment>): Html =>
  html`<h2>Packages</h2>${
    shipments.length === 0 ? html`<p class="muted">None shipped yet.</p>` : html`<div class="scroll"><table data-testid="packages">
      <thead><tr><th>#</th><th>carrier</th><th>tracking</th><th>told the store</th></tr></thead>
      <tbody>${
      shipments.map((s, i) => {
        const link = trackingLinkOf(s)
        return html`<tr><td>${i + 1}</td><td>${s.carrier ?? "–"}</td><td class="break">${
          link === null ? s.trackingNo : html`<a href=${link} target="_blank" rel="noopener noreferrer">${s.trackingNo} \u2197</a>`
        }</td><td>${s.pushState.replaceAll("_", " ")}</td></tr>`
      })
    }</tbody>
    </table></div>`
  }`
