import * as Money from "../domain/Money.js"
import {
  type PodProduct,
  type PodVariantView,
  type Proposal,
  type StoreProduct,
  stockWords,
  type StoreVariantLine
} from "../mapping/ProductMapping.js"
import { html, type Html } from "./Html.js"
import type { Notice } from "./ConsoleFlash.js"

/**
 * The "Map a product" page: the store products held orders wait on, a POD product picker over the
 * cached catalog, and the rows proposed for the chosen pair, to review and write in one step.
 * Images (the catalog's product images, design files) load in the browser straight from their
 * https address, as on the order page: the daemon fetches nothing for them.
 */

export interface ReviewRow {
  readonly line: StoreVariantLine
  readonly proposal: Proposal
  /** What the seller chose before "Show the designs" (a POD variant id, "" for later), kept over the proposal. */
  readonly chosen?: string | undefined
  readonly ignored?: boolean | undefined
}

const isChosen = (r: ReviewRow, variantId: string) =>
  r.chosen !== undefined ? r.chosen === variantId : r.proposal._tag === "Proposed" && r.proposal.variant.variantId === variantId

export interface ProductPageInput {
  readonly storeKeys: ReadonlyArray<string>
  readonly storeKey: string | undefined
  readonly file: string | undefined
  readonly csrfToken: string
  readonly storeProducts: ReadonlyArray<StoreProduct>
  readonly chosen: StoreProduct | undefined
  /** The search typed into the picker, and the POD products it finds (at most `SHOWN_PRODUCTS`). */
  readonly search: string
  readonly found: ReadonlyArray<PodProduct>
  readonly foundTotal: number
  readonly catalogCached: boolean
  readonly pod: PodProduct | undefined
  readonly review: ReadonlyArray<ReviewRow>
  readonly front: string
  readonly back: string
  readonly flash: Notice | undefined
}

export const SHOWN_PRODUCTS = 24

const url = (params: Record<string, string | undefined>, anchor = "") =>
  `/console/mappings/products?${
    Object.entries(params).flatMap(([k, v]) => (v === undefined || v === "" ? [] : [`${k}=${encodeURIComponent(v)}`])).join("&")
  }${anchor === "" ? "" : `#${anchor}`}`

/** A colour swatch as an inline SVG image: the CSP forbids inline styles, images from data: are allowed. */
const swatch = (name: string, hex: string | undefined): Html => {
  const fill = hex !== undefined && /^#?[0-9a-f]{3,8}$/i.test(hex) ? (hex.startsWith("#") ? hex : `#${hex}`) : "#ffffff"
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" rx="3" fill="${fill}" stroke="#8793a8"/></svg>`
  return html`<img class="swatch" src=${`data:image/svg+xml,${encodeURIComponent(svg)}`} alt=${name} title=${
    hex === undefined ? name : `${name} (${hex})`
  } width="16" height="16" />`
}

const isHttps = (address: string) => /^https:\/\/[^\s]+$/i.test(address.trim())

const productImage = (address: string | undefined, name: string): Html =>
  address !== undefined && isHttps(address)
    ? html`<img class="product" src=${address} alt=${name} loading="lazy" referrerpolicy="no-referrer" />`
    : html`<span class="product muted">no image</span>`

const prices = (amounts: ReadonlyArray<Money.Money>) =>
  amounts.length === 0 ? "no price" : `from ${amounts.map((m) => Money.format(m)).join(" · ")}`

const podVariantText = (v: PodVariantView) =>
  [
    [v.color, v.size].filter((p) => p !== undefined).join(" / ") || v.variantId,
    v.price === undefined ? undefined : Money.format(v.price),
    stockWords(v.stockLabel)
  ]
    .filter((p) => p !== undefined).join(" — ")

const storeProductList = (input: ProductPageInput): Html =>
  input.storeProducts.length === 0
    ? html`<p class="muted">No held order waits on a mapping row for ${input.storeKey ?? "this store"}.</p>`
    : html`<div class="table-wrap"><table data-testid="store-products">
      <thead><tr><th>store product</th><th class="num">variants</th><th class="num">held order lines</th><th></th></tr></thead>
      <tbody>${
      input.storeProducts.map((p) =>
        html`<tr class=${p.key === input.chosen?.key ? "chosen" : undefined}><td>${p.title}</td><td class="num">${p.variants.length}</td>
          <td class="num">${p.orders}</td><td><a href=${
          url({ store: input.storeKey, product: p.key }, "pick")
        }>map this product</a></td></tr>`
      )
    }</tbody></table></div>`

const podCard = (input: ProductPageInput, p: PodProduct): Html =>
  html`<div class=${p.productId === input.pod?.productId ? "card pod-product chosen" : "card pod-product"} data-testid="pod-product">
    ${productImage(p.imageUrl, p.name)}
    <strong>${p.name}</strong>
    <span class="swatches">${p.colours.map((c) => swatch(c.name, c.hex))}</span>
    <span class="muted">${p.colours.map((c) => c.name).join(", ")}</span>
    <span>Sizes: ${p.sizes.join(", ") || "one"}</span>
    <span>${prices(p.lowestPrices)}</span>
    <span class=${p.inStock === 0 ? "bad" : "muted"}>${p.inStock} of ${p.variants.length} variants can be ordered now</span>
    <a href=${url({ store: input.storeKey, product: input.chosen?.key, q: input.search, pod: p.productId }, "review")}>use this product</a>
  </div>`

const picker = (input: ProductPageInput, chosen: StoreProduct): Html =>
  html`<h2 id="pick">${chosen.title}: its variants</h2>
    <div class="table-wrap"><table data-testid="store-variants">
      <thead><tr><th>variant</th><th>SKU</th><th>variant id</th><th class="num">held orders</th></tr></thead>
      <tbody>${
    chosen.variants.map((v) =>
      html`<tr><td>${v.variantTitle ?? ""}</td><td>${v.sku}</td><td>${v.variantId}</td><td class="num">${v.orders}</td></tr>`
    )
  }</tbody></table></div>
    <h2>Choose the POD product it is printed on</h2>
    <form method="get" action="/console/mappings/products" class="filters" data-testid="pod-search">
      <input type="hidden" name="store" value=${input.storeKey} />
      <input type="hidden" name="product" value=${chosen.key} />
      <label>Search the catalog (name, colour, size) <input type="search" name="q" value=${input.search} placeholder="organic tee black" /></label>
      <button type="submit" class="secondary">Search</button>
    </form>
    ${
    !input.catalogCached
      ? html`<p class="muted">No catalog is cached yet: products show once the daemon has read the POD catalog.</p>`
      : input.found.length === 0
      ? html`<p class="muted">No POD product has all of these words.</p>`
      : html`<div class="cards pod-products">${input.found.map((p) => podCard(input, p))}</div>
        ${
        input.foundTotal > input.found.length
          ? html`<p class="muted">The first ${input.found.length} of ${input.foundTotal} products: search to narrow them.</p>`
          : null
      }`
  }`

const designField = (name: "front" | "back", value: string, attributeNames: ReadonlyArray<string>): Html => {
  const attribute = /^\{\{\s*attr\s+(.+?)\s*\}\}$/.exec(value.trim())?.[1]
  const explained = value.trim() === ""
    ? html`<span class="muted">none: ${name === "front" ? "a front or a back design is needed" : "nothing printed on the back"}</span>`
    : attribute !== undefined
    ? html`<span class="muted">taken from each order line's <code>${attribute}</code> attribute${
      attributeNames.includes(attribute)
        ? " (the held orders' lines carry it)"
        : ", which the held orders' lines do not carry: check its name"
    }</span>`
    : isHttps(value)
    ? html`<a href=${value.trim()} target="_blank" rel="noopener noreferrer"><img class="design-thumb" src=${value.trim()} alt=${`${name} design`} referrerpolicy="no-referrer" /></a>`
    : html`<span class="bad">not an https address nor {{attr NAME}}: the check will refuse it</span>`
  return html`<label>${name === "front" ? "Front design" : "Back design"} <span class="muted">(print_${name})</span>
    <input name=${name} value=${value} placeholder=${name === "front" ? "https://… or {{attr design_front}}" : "optional"} /></label>
    <span class="design" data-testid=${`design-${name}`}>${explained}</span>`
}

const reviewForm = (input: ProductPageInput, chosen: StoreProduct, pod: PodProduct): Html =>
  html`<h2 id="review">Review: ${chosen.title} printed on ${pod.name}</h2>
    <form method="post" action="/console/mappings/products/apply" data-testid="review">
      <input type="hidden" name="_csrf" value=${input.csrfToken} />
      <input type="hidden" name="store" value=${input.storeKey} />
      <input type="hidden" name="product" value=${chosen.key} />
      <input type="hidden" name="pod" value=${pod.productId} />
      <input type="hidden" name="q" value=${input.search} />
      <input type="hidden" name="rows" value=${String(input.review.length)} />
      <div class="table-wrap"><table data-testid="proposed">
        <thead><tr><th>store variant</th><th>POD variant <span class="muted">(pod_variant_id)</span></th><th>why</th><th>not a POD item <span class="muted">(ignore)</span></th></tr></thead>
        <tbody>${
    input.review.map((r, i) =>
      html`<tr data-testid="proposed-row">
        <td>${r.line.variantTitle ?? ""}<br /><span class="muted">${r.line.sku || r.line.variantId}</span>
          <input type="hidden" name=${`sku_${i}`} value=${r.line.sku} /><input type="hidden" name=${`variant_${i}`} value=${r.line.variantId} /></td>
        <td><select name=${`pod_${i}`}>
          <option value="" selected=${r.chosen !== undefined ? r.chosen === "" : r.proposal._tag === "None"}>leave for later</option>
          ${pod.variants.map((v) => html`<option value=${v.variantId} selected=${isChosen(r, v.variantId)}>${podVariantText(v)}</option>`)}
        </select></td>
        <td class=${r.proposal._tag === "None" ? "bad" : "muted"}>${r.proposal.note}</td>
        <td><label><input type="checkbox" name=${`ignore_${i}`} value="true" checked=${r.ignored === true} /> ignore</label></td></tr>`
    )
  }</tbody></table></div>
      <div class="filters designs-form">
        ${designField("front", input.front, chosen.attributeNames)}
        ${designField("back", input.back, chosen.attributeNames)}
        <button type="submit" class="secondary" name="preview" value="designs">Show the designs</button>
      </div>
      <p class="muted">The designs apply to every row of this product. "Show the designs" writes nothing: it shows them again with the proposal. A row left for later is not written; an ignored one tells podsync the item is not printed.</p>
      <button type="submit" data-testid="apply">Write these rows and release the held orders</button>
    </form>
    <p class="muted">The rows are added to ${
    input.file ?? "the mapping file"
  } in one write (the previous version kept as .bak), after the same check as podsync check; the held orders they unblock are re-planned at once.</p>`

export const productMappingContent = (input: ProductPageInput): Html =>
  html`<h1>Map a product</h1>
    <p><a href=${`/console/mappings${
    input.storeKey === undefined ? "" : `?store=${encodeURIComponent(input.storeKey)}`
  }`}>${"\u2190 Mappings"}</a></p>
    ${
    input.flash === undefined ?
      null :
      html`<div class=${input.flash.ok ? "flash" : "flash refused"} role=${
        input.flash.ok ? "status" : "alert"
      } data-testid="outcome">${input.flash.text}</div>`
  }
    <form method="get" action="/console/mappings/products" class="filters">
      <label>Store <select name="store">
        ${input.storeKeys.map((s) => html`<option value=${s} selected=${s === input.storeKey}>${s}</option>`)}
      </select></label>
      <button type="submit" class="secondary">Show</button>
    </form>
    <h2>Store products held orders wait on <span class="pill warn">${input.storeProducts.length}</span></h2>
    ${storeProductList(input)}
    ${input.chosen === undefined ? null : picker(input, input.chosen)}
    ${input.chosen === undefined || input.pod === undefined ? null : reviewForm(input, input.chosen, input.pod)}`
