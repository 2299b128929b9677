import { emptyCells, type MappingCells } from "../domain/MappingCells.js"
import { normalizeVariantId, PRINT_COLUMNS, type PrintColumn } from "../domain/MappingTable.js"
import { problemsOfCells } from "./MappingCsv.js"
import { sizeTokens } from "./ProductMapping.js"

/**
 * `podsync mappings suggest`, pure: completes a store's mapping rows with
 * POD variants from the catalog, by SKU first, then by the colour and size
 * named in the variant title (narrowed to one product by the words of the
 * product title). What it cannot match is left without a POD id and said why;
 * a row that already names a POD variant is never changed.
 */

export interface SuggestVariant {
  readonly variantId: string
  readonly sku: string | undefined
  readonly color: string | undefined
  readonly size: string | undefined
  readonly productId: string | undefined
  readonly productName: string | undefined
  readonly stockLabel: string
}

/** A line the store sold: from its recent orders, or a row of its mapping file. */
export interface SuggestLine {
  readonly storeVariantId?: string | undefined
  readonly storeSku?: string | undefined
  readonly title?: string | undefined
  readonly variantTitle?: string | undefined
}

export interface Suggestions {
  /** The draft table: the file's rows in their order, then lines seen only in orders. */
  readonly rows: ReadonlyArray<MappingCells>
  /** Per row, what the suggestion did or what a person must choose (the draft CSV's `notes` column). */
  readonly rowNotes: ReadonlyArray<string>
  /** Per row, whether it loads as it is; the others are written commented out, their note saying what to add. */
  readonly complete: ReadonlyArray<boolean>
  /** How many of `rows` are the file's own (the rest are lines of orders the file does not map). */
  readonly fileRows: number
  readonly matched: number
  /** Lines left without a POD variant, each with the reason. */
  readonly unmatched: ReadonlyArray<string>
  /** Matches worth a second look (a discontinued or out-of-stock variant). */
  readonly notes: ReadonlyArray<string>
}

const SYNONYMS: Readonly<Record<string, string>> = {
  gray: "grey",
  small: "s",
  medium: "m",
  large: "l",
  xlarge: "xl",
  xxl: "2xl",
  xxxl: "3xl",
  xxxxl: "4xl",
  xxxxxl: "5xl"
}
// Sizes read as one spelling first ("Extra Large" is "xl", never "large"), as mapping by product reads them.
const tokens = (text: string | undefined): ReadonlyArray<string> =>
  sizeTokens((text ?? "").toLowerCase().split(/[^a-z0-9]+/).filter((t) => t !== "")).map((t) => SYNONYMS[t] ?? t)

const containsPhrase = (haystack: ReadonlyArray<string>, phrase: ReadonlyArray<string>) =>
  phrase.length > 0 && haystack.some((_, start) => phrase.every((word, i) => haystack[start + i] === word))

const unavailable = (label: string) => /DISCONTINUED$/.test(label)
const stockNote = (label: string) =>
  /DISCONTINUED$/.test(label) ? "is discontinued" : /OUT_OF_STOCK(_5D)?$/.test(label) ? "is out of stock" : undefined

const describeLine = (line: SuggestLine) =>
  [line.storeSku ? `SKU ${line.storeSku}` : undefined, line.storeVariantId ? `variant ${line.storeVariantId}` : undefined]
    .filter(Boolean).join(", ") +
  (line.title || line.variantTitle ? ` ("${[line.title, line.variantTitle].filter(Boolean).join(" / ")}")` : "")

const describeVariant = (v: SuggestVariant) => `${v.sku ?? v.variantId} (${v.productName ?? "?"}, ${v.color ?? "?"} / ${v.size ?? "?"})`

type Match =
  | { readonly variant: SuggestVariant; readonly by: "sku" | "colour and size" }
  | { readonly reason: string; readonly candidates?: ReadonlyArray<SuggestVariant> }

/** A catalog variant as a person picks it: the id to write, then what it is. */
const candidateCell = (v: SuggestVariant) => `${v.variantId} = ${describeVariant(v)}`

export const matchLine = (line: SuggestLine, catalog: ReadonlyArray<SuggestVariant>): Match => {
  const sku = line.storeSku?.trim().toLowerCase()
  if (sku) {
    const bySku = catalog.find((v) => v.sku?.toLowerCase() === sku)
    if (bySku !== undefined) return { variant: bySku, by: "sku" }
  }
  // The variant title names colour and size ("Forest Green / L"); without one, try the title and SKU.
  const words = tokens(line.variantTitle?.trim() ? line.variantTitle : `${line.title ?? ""} ${line.storeSku ?? ""}`)
  const fits = catalog.filter((v) => containsPhrase(words, tokens(v.color)) && containsPhrase(words, tokens(v.size)))
  if (fits.length === 0) return { reason: "no catalog variant has its SKU, nor the colour and size its variant title names" }
  // "Heather Grey" over "Grey", "iPhone 15 Pro" over "iPhone 15".
  const longest = Math.max(...fits.map((v) => tokens(v.color).length + tokens(v.size).length))
  const best = fits.filter((v) => tokens(v.color).length + tokens(v.size).length === longest)
  const products = new Map<string, SuggestVariant>()
  for (const v of best) if (!products.has(v.productId ?? v.variantId)) products.set(v.productId ?? v.variantId, v)
  const chosen = (v: SuggestVariant): Match =>
    unavailable(v.stockLabel)
      ? { reason: `its colour and size match ${describeVariant(v)}, which is discontinued: choose another POD variant` }
      : { variant: v, by: "colour and size" }
  const [onlyProduct, ...otherProducts] = products.values()
  if (onlyProduct !== undefined && otherProducts.length === 0) return chosen(onlyProduct)
  const titleWords = new Set(tokens(line.title))
  const scored = [...products.values()].map((v) => ({ v, score: tokens(v.productName).filter((w) => titleWords.has(w)).length }))
  const top = Math.max(...scored.map((s) => s.score))
  const leaders = scored.filter((s) => s.score === top)
  const [leader, ...otherLeaders] = leaders
  if (top > 0 && leader !== undefined && otherLeaders.length === 0) return chosen(leader.v)
  const candidates = (top > 0 ? leaders : scored).map((s) => s.v)
  const examples = candidates.slice(0, 3).map(describeVariant).join("; ")
  return {
    reason: `${candidates.length} catalog products have that colour and size (${examples}${
      scored.length > 3 ? "; …" : ""
    }): choose one by hand`,
    candidates
  }
}

const keyOf = (line: SuggestLine) =>
  line.storeVariantId?.trim()
    ? `v:${normalizeVariantId(line.storeVariantId)}`
    : line.storeSku?.trim()
    ? `s:${line.storeSku.trim()}`
    : undefined

const isIgnored = (cells: MappingCells) => /^(true|yes|1)$/i.test(cells.ignore.trim())
const hasDesign = (cells: MappingCells) => cells.print_front.trim() !== "" || cells.print_back.trim() !== ""
const designCells = (cells: MappingCells) =>
  Object.fromEntries((Object.keys(PRINT_COLUMNS) as Array<PrintColumn>).map((c) => [c, cells[c]])) as Pick<MappingCells, PrintColumn>
const isAttribute = (cell: string) => /^\{\{\s*attr\s+.+\}\}$/.test(cell.trim())

/** Where a row without a design can take one from: a row of the same store product, or the attribute every row takes it from. */
interface KnownDesigns {
  readonly byTitle: ReadonlyMap<string, { readonly cells: MappingCells; readonly name: string }>
  readonly everyRow: Pick<MappingCells, PrintColumn> | undefined
}

const WHAT_A_DESIGN_IS = "an image URL (https://…) or {{attr NAME}}, the line item's attribute that holds it"

/** A row's problems as what a person adds to it. */
const whatToAdd = (problems: ReadonlyArray<string>, note: string) =>
  problems.flatMap((p) =>
    /front or a back design/.test(p)
      ? [`add print_front or print_back: ${WHAT_A_DESIGN_IS}`]
      : /^give pod_variant_id or pod_legacy_id/.test(p)
      ? note.startsWith("choose one") ? [] : ["write the POD variant's id in pod_variant_id (or ignore=true if it is not a POD item)"]
      : [p]
  ).join("; ")

export const suggestMappings = (
  existing: ReadonlyArray<MappingCells>,
  orderLines: ReadonlyArray<SuggestLine>,
  catalog: ReadonlyArray<SuggestVariant>
): Suggestions => {
  const unmatched: Array<string> = []
  const notes: Array<string> = []
  let matched = 0
  // Order lines tell more (titles) than file rows: use them for rows they cover.
  const byKey = new Map<string, SuggestLine>()
  for (const line of orderLines) {
    for (const key of [keyOf({ storeVariantId: line.storeVariantId }), keyOf({ storeSku: line.storeSku })]) {
      if (key !== undefined && !byKey.has(key)) byKey.set(key, line)
    }
  }
  const lineOfRow = (cells: MappingCells) =>
    [keyOf({ storeVariantId: cells.store_variant_id }), keyOf({ storeSku: cells.store_sku })]
      .map((key) => (key === undefined ? undefined : byKey.get(key))).find((l) => l !== undefined)

  // The designs the file already knows: a store product's rows share its design (sizes and colours of one print).
  const validDesign = (cells: MappingCells) =>
    problemsOfCells({ ...emptyCells, store_sku: "-", pod_variant_id: "-", ...designCells(cells) }).length === 0
  const designed = existing.filter((cells) => !isIgnored(cells) && hasDesign(cells) && validDesign(cells))
  const byTitle = new Map<string, { cells: MappingCells; name: string }>()
  for (const cells of designed) {
    const title = lineOfRow(cells)?.title?.trim()
    if (title && !byTitle.has(title.toLowerCase())) {
      byTitle.set(title.toLowerCase(), { cells, name: cells.store_sku || cells.store_variant_id })
    }
  }
  const [first, ...others] = designed.map(designCells)
  const sameEverywhere = first !== undefined && others.every((d) => JSON.stringify(d) === JSON.stringify(first)) &&
    Object.values(first).every((cell) => cell.trim() === "" || isAttribute(cell))
  const known: KnownDesigns = { byTitle, everyRow: sameEverywhere ? first : undefined }

  const rowNotes: Array<string> = []
  const complete: Array<boolean> = []
  const finish = (cells: MappingCells, note: string): MappingCells => {
    const problems = problemsOfCells(cells)
    complete.push(problems.length === 0)
    rowNotes.push(problems.length === 0 ? note : [note, whatToAdd(problems, note)].filter((n) => n !== "").join("; "))
    return cells
  }
  /** The row's design, from what the file knows, when it has none. */
  const withDesign = (cells: MappingCells, line: SuggestLine): { cells: MappingCells; note: string | undefined } => {
    if (isIgnored(cells) || hasDesign(cells)) return { cells, note: undefined }
    const sibling = line.title?.trim() ? known.byTitle.get(line.title.trim().toLowerCase()) : undefined
    if (sibling !== undefined) {
      return {
        cells: { ...cells, ...designCells(sibling.cells) },
        note: `designs as for ${sibling.name} (the same store product, "${line.title?.trim()}")`
      }
    }
    if (known.everyRow !== undefined) {
      return {
        cells: { ...cells, ...known.everyRow },
        note: "designs from the line item's attributes, as every row of the file takes them: check this item has them"
      }
    }
    return { cells, note: undefined }
  }
  const complete1 = (cells: MappingCells, line: SuggestLine): MappingCells => {
    if (cells.pod_variant_id !== "" || cells.pod_legacy_id !== "" || isIgnored(cells)) {
      const designedRow = withDesign(cells, line)
      return finish(designedRow.cells, designedRow.note ?? "")
    }
    const match = matchLine(line, catalog)
    if ("reason" in match) {
      unmatched.push(`${describeLine(line)}: ${match.reason}`)
      const designedRow = withDesign(cells, line)
      return finish(
        designedRow.cells,
        [
          match.candidates !== undefined && match.candidates.length > 0
            ? `choose one and write its id in pod_variant_id: ${match.candidates.slice(0, 5).map(candidateCell).join("; ")}${
              match.candidates.length > 5 ? `; and ${match.candidates.length - 5} more` : ""
            }`
            : `no match: ${match.reason}`,
          designedRow.note
        ].filter((n) => n !== undefined).join("; ")
      )
    }
    matched++
    const stock = stockNote(match.variant.stockLabel)
    if (stock !== undefined) notes.push(`${describeLine(line)} → ${describeVariant(match.variant)} ${stock}`)
    const designedRow = withDesign({ ...cells, pod_variant_id: match.variant.variantId, pod_legacy_id: "" }, line)
    return finish(
      designedRow.cells,
      [
        `suggested by ${match.by === "sku" ? "SKU" : "colour and size: check it"}: ${describeVariant(match.variant)}${
          stock === undefined ? "" : `, which ${stock}`
        }`,
        designedRow.note
      ].filter((n) => n !== undefined).join("; ")
    )
  }

  const rows: Array<MappingCells> = existing.map((cells) => {
    const fromOrders = lineOfRow(cells)
    return complete1(cells, {
      storeVariantId: cells.store_variant_id,
      storeSku: cells.store_sku,
      title: fromOrders?.title,
      variantTitle: fromOrders?.variantTitle
    })
  })
  // A line a row already answers (by variant id or SKU, as the planner looks) gets no row of its own:
  // a new variant-id row would win over the SKU row a person reviewed.
  const answered = new Set<string>()
  const answer = (cells: Pick<MappingCells, "store_variant_id" | "store_sku">) => {
    for (const key of [keyOf({ storeVariantId: cells.store_variant_id }), keyOf({ storeSku: cells.store_sku })]) {
      if (key !== undefined) answered.add(key)
    }
  }
  existing.forEach(answer)
  for (const line of orderLines) {
    const keys = [keyOf({ storeVariantId: line.storeVariantId }), keyOf({ storeSku: line.storeSku })].filter((k) => k !== undefined)
    if (keys.length === 0 || keys.some((k) => answered.has(k))) continue
    const cells = { ...emptyCells, store_variant_id: line.storeVariantId ?? "", store_sku: line.storeSku ?? "" }
    answer(cells)
    rows.push(complete1(cells, line))
  }
  return { rows, rowNotes, complete, fileRows: existing.length, matched, unmatched, notes }
}

/** What `podsync mappings suggest` would write for one line: the POD variant when exactly one fits, and its note. */
export interface LineSuggestion {
  readonly podVariantId: string | undefined
  /** The draft CSV's note: "suggested by SKU: …", "choose one …: …", "no match: …". */
  readonly note: string
}

/** One line as `suggestMappings` judges it (for a page that lists the lines one by one). */
export const suggestionFor = (line: SuggestLine, catalog: ReadonlyArray<SuggestVariant>): LineSuggestion => {
  const { rowNotes, rows } = suggestMappings([], [line], catalog)
  // The page asks for the POD variant only: its form takes the design.
  const podVariantId = rows[0]?.pod_variant_id
  return { podVariantId: podVariantId === undefined || podVariantId === "" ? undefined : podVariantId, note: rowNotes[0] ?? "" }
}
