import type { Money } from "../domain/Money.js"
import { findRow, type MappingTable } from "../domain/MappingTable.js"

/**
 * Mapping by product (issue 34), pure: the store products held orders wait on, the POD products of
 * the cached catalog as a seller picks one (image, colours, sizes, prices, stock), and a proposed
 * POD variant for each store variant, by the size and colour its variant title names ("Forest
 * Green / Extra Large" finds the POD variant "Forest Green", "XL"). A person reviews the proposal.
 */

/** A store variant a held order waits on (a line of `AttentionRepo.unmatchedLines`). */
export interface StoreVariantLine {
  readonly sku: string
  readonly variantId: string
  readonly productId: string | null
  readonly title: string | null
  readonly variantTitle: string | null
  readonly orders: number
  /** The names of the line item's attributes ("design_front"): where a design can come from. */
  readonly attributeNames: ReadonlyArray<string>
}

export interface StoreProduct {
  /** The store's product id, else its title: what the page names it by. */
  readonly key: string
  readonly title: string
  readonly variants: ReadonlyArray<StoreVariantLine>
  /** Held orders with a line of this product (an order with two of its variants counts twice). */
  readonly orders: number
  readonly attributeNames: ReadonlyArray<string>
}

/** A cached POD catalog variant, as the picker shows it. */
export interface PodVariantView {
  readonly variantId: string
  readonly productId: string | undefined
  readonly productName: string | undefined
  readonly color: string | undefined
  readonly hexColor: string | undefined
  readonly size: string | undefined
  readonly price: Money | undefined
  readonly stockLabel: string
  readonly imageUrl: string | undefined
}

export interface PodProduct {
  readonly productId: string
  readonly name: string
  readonly imageUrl: string | undefined
  readonly variants: ReadonlyArray<PodVariantView>
  /** Each colour once, in catalog order, with its swatch. */
  readonly colours: ReadonlyArray<{ readonly name: string; readonly hex: string | undefined }>
  readonly sizes: ReadonlyArray<string>
  /** The lowest price in each currency the variants are priced in. */
  readonly lowestPrices: ReadonlyArray<Money>
  /** Variants that can be ordered now (not out of stock, not discontinued). */
  readonly inStock: number
}

const productKey = (line: StoreVariantLine) => line.productId?.trim() || line.title?.trim() || line.sku || line.variantId

/** Held lines grouped by store product, the product with the most waiting orders first. */
export const storeProductsOf = (lines: ReadonlyArray<StoreVariantLine>): ReadonlyArray<StoreProduct> => {
  const groups = new Map<string, Array<StoreVariantLine>>()
  for (const line of lines) groups.set(productKey(line), [...(groups.get(productKey(line)) ?? []), line])
  return [...groups].map(([key, variants]) => ({
    key,
    title: variants.find((v) => v.title?.trim())?.title?.trim() ?? key,
    variants,
    orders: variants.reduce((n, v) => n + v.orders, 0),
    attributeNames: [...new Set(variants.flatMap((v) => v.attributeNames))]
  })).sort((a, b) => b.orders - a.orders || a.title.localeCompare(b.title))
}

const unavailable = (label: string) => /(DISCONTINUED|OUT_OF_STOCK(_5D)?)$/.test(label)

/** What a stock label says, in a seller's words. */
export const stockWords = (label: string) =>
  /DISCONTINUED$/.test(label)
    ? "discontinued"
    : /OUT_OF_STOCK_5D$/.test(label)
    ? "out of stock for about 5 days"
    : /OUT_OF_STOCK$/.test(label)
    ? "out of stock"
    : /IN_STOCK$/.test(label)
    ? "in stock"
    : label === ""
    ? "stock not known"
    : label

const cheaper = (a: Money, b: Money) => a.totalNanos < b.totalNanos

/** The catalog's variants grouped by product, in the catalog's order. */
export const podProductsOf = (variants: ReadonlyArray<PodVariantView>): ReadonlyArray<PodProduct> => {
  const groups = new Map<string, Array<PodVariantView>>()
  for (const v of variants) {
    const key = v.productId ?? v.variantId
    groups.set(key, [...(groups.get(key) ?? []), v])
  }
  return [...groups].map(([productId, vs]) => {
    const colours = new Map<string, string | undefined>()
    for (const v of vs) if (v.color !== undefined && !colours.has(v.color)) colours.set(v.color, v.hexColor)
    const lowest = new Map<string, Money>()
    for (const v of vs) {
      const known = v.price === undefined ? undefined : lowest.get(v.price.currency)
      if (v.price !== undefined && (known === undefined || cheaper(v.price, known))) lowest.set(v.price.currency, v.price)
    }
    return {
      productId,
      name: vs.find((v) => v.productName)?.productName ?? productId,
      imageUrl: vs.find((v) => v.imageUrl)?.imageUrl,
      variants: vs,
      colours: [...colours].map(([name, hex]) => ({ name, hex })),
      sizes: [...new Set(vs.flatMap((v) => (v.size === undefined ? [] : [v.size])))],
      lowestPrices: [...lowest.values()],
      inStock: vs.filter((v) => !unavailable(v.stockLabel)).length
    }
  })
}

const words = (text: string | undefined) => (text ?? "").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== "")

/** The products whose name, colours or sizes hold every word searched for. */
export const searchPodProducts = (products: ReadonlyArray<PodProduct>, search: string): ReadonlyArray<PodProduct> => {
  const wanted = words(search)
  return products.filter((p) => {
    const haystack = new Set([
      ...words(p.name),
      ...p.colours.flatMap((c) => words(c.name)),
      ...p.sizes.flatMap(words),
      ...words(p.productId)
    ])
    return wanted.every((w) => haystack.has(w))
  })
}

/**
 * A size as one spelling: "Extra Large", "X-Large" and "XL" are "xl"; "XXL", "2X-Large" and "Double
 * Extra Large" are "2xl". A size that is no letter size ("11oz", "18x24") is its words run together.
 */
export const normalizeSize = (size: string): string => {
  const compact = size.toLowerCase().replace(/[^a-z0-9]+/g, "")
    .replace(/^one(size)?$|^os$|^onesizefitsall$/, "onesize")
    .replace(/double/g, "2").replace(/triple/g, "3")
    .replace(/extra/g, "x")
  const letter = /^(\d*)(x*)(small|sm|s|medium|med|m|large|lg|l)$/.exec(compact)
  if (letter === null) return compact
  const [, digits = "", xs = "", base = ""] = letter
  const unit = base.startsWith("s") ? "s" : base.startsWith("m") ? "m" : "l"
  if (unit === "m") return digits === "" && xs === "" ? "m" : compact
  const times = (digits === "" ? 0 : Number(digits) - (xs.length > 0 ? 1 : 0)) + xs.length
  if (times === 0) return unit
  return times === 1 ? `x${unit}` : `${times}x${unit}`
}

const LETTER_SIZE = /^(m|(\d+x|x)?[sl]|onesize)$/

/**
 * Words with the sizes among them as one spelling each: ["black", "extra", "large"] is
 * ["black", "xl"], so that "Extra Large" never reads as "Large". Other words are left as they are.
 */
export const sizeTokens = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < words.length; i++) {
    const first = words[i] ?? ""
    // A size of two or three words ("extra large", "double extra large"), unless its first word is a size itself ("S M").
    const span = LETTER_SIZE.test(normalizeSize(first))
      ? undefined
      : [3, 2].find((n) => i + n <= words.length && LETTER_SIZE.test(normalizeSize(words.slice(i, i + n).join(""))))
    if (span !== undefined) {
      out.push(normalizeSize(words.slice(i, i + span).join("")))
      i += span - 1
    } else out.push(LETTER_SIZE.test(normalizeSize(first)) ? normalizeSize(first) : first)
  }
  return out
}

/** A colour as one spelling: its words in lower case, "Gray" as "grey". */
export const normalizeColour = (colour: string): string => words(colour).map((w) => (w === "gray" ? "grey" : w)).join(" ")

/** The options a store variant title names: "Forest Green / XL", "Forest Green - XL", "XL, Forest Green". */
export const optionsOf = (variantTitle: string | null): ReadonlyArray<string> =>
  (variantTitle ?? "").split(/\s+[/|\u2013-]\s+|\s*[/,|]\s*/).map((o) => o.trim()).filter((o) => o !== "")

export type Proposal =
  | { readonly _tag: "Proposed"; readonly variant: PodVariantView; readonly note: string }
  | { readonly _tag: "None"; readonly note: string }

const describePod = (v: PodVariantView) => [v.color, v.size].filter((p) => p !== undefined).join(" / ") || v.variantId

/**
 * The POD variant of `product` whose size and colour the store variant's title names. A product of
 * one colour (or one size) needs only the other. Among several fits, one that can be ordered now wins.
 */
export const proposeVariant = (line: StoreVariantLine, product: PodProduct): Proposal => {
  const options = optionsOf(line.variantTitle)
  if (options.length === 0) {
    return { _tag: "None", note: "the store names no colour or size for this variant: choose the POD variant" }
  }
  const oneColour = product.colours.length <= 1
  const oneSize = product.sizes.length <= 1
  const fitting = (sizes: ReadonlySet<string>, hasColour: (colour: string) => boolean) =>
    product.variants.filter((v) =>
      (v.size === undefined || oneSize || sizes.has(normalizeSize(v.size))) &&
      (v.color === undefined || oneColour || hasColour(normalizeColour(v.color)))
    )
  // Each option is a colour or a size ("Forest Green / XL"); failing that, the title's words hold
  // them ("Forest Green XL"): the colour as a phrase, the size as one or two words, the longest colour first.
  const colours = new Set(options.map(normalizeColour))
  const exact = fitting(new Set(options.map(normalizeSize)), (c) => colours.has(c))
  const titleWords = words(options.join(" "))
  const phrase = ` ${titleWords.join(" ")} `
  const loose = exact.length > 0 ? exact : fitting(
    new Set([...titleWords, ...titleWords.slice(1).map((w, i) => `${titleWords[i]} ${w}`)].map(normalizeSize)),
    (c) => c !== "" && phrase.includes(` ${c} `)
  )
  const longest = Math.max(0, ...loose.map((v) => normalizeColour(v.color ?? "").length))
  const fits = exact.length > 0 ? exact : loose.filter((v) => normalizeColour(v.color ?? "").length === longest)
  const [first] = fits
  if (first === undefined) {
    return {
      _tag: "None",
      note: `${product.name} has no variant in "${options.join(" / ")}": choose one, or ignore the variant`
    }
  }
  const orderable = fits.find((v) => !unavailable(v.stockLabel))
  const chosen = orderable ?? first
  const stock = unavailable(chosen.stockLabel) ? `, but it is ${stockWords(chosen.stockLabel)}: choose another or wait` : ""
  const several = fits.length > 1 ? ` (one of ${fits.length} that fit)` : ""
  return {
    _tag: "Proposed",
    variant: chosen,
    note: `"${options.join(" / ")}" matches ${describePod(chosen)}${several}${stock}`
  }
}

/** Where a design can come from on this product's lines: `{{attr NAME}}` for an attribute that names a design. */
export const designAttribute = (attributeNames: ReadonlyArray<string>, side: "front" | "back"): string | undefined =>
  attributeNames.find((name) => new RegExp(`design.*${side}|${side}.*design`, "i").test(name))

/** The held orders `table` now answers every line of (by variant id or SKU, as the planner looks): the orders a change unblocks. */
export const unblockedBy = (
  table: MappingTable,
  orders: ReadonlyArray<
    { readonly id: number; readonly lines: ReadonlyArray<{ readonly sku?: string | undefined; readonly variantId?: string | undefined }> }
  >
): ReadonlyArray<number> =>
  orders.filter((o) => o.lines.length > 0 && o.lines.every((line) => findRow(table, line) !== undefined)).map((o) => o.id)
