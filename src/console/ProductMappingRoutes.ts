import * as path from "node:path"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { cellsOfRow, type MappingCells } from "../domain/MappingCells.js"
import {
  designAttribute,
  podProductsOf,
  type PodVariantView,
  proposeVariant,
  searchPodProducts,
  storeProductsOf,
  unblockedBy
} from "../mapping/ProductMapping.js"
import { rewriteMappingFile, withRowsAppended } from "../pipeline/MappingEdit.js"
import { MappingStore } from "../pipeline/MappingStore.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { fitText, Notice, redirectWithFlash, withFlash } from "./ConsoleFlash.js"
import { type Caller, htmlResponse, SECURITY_HEADERS, WEB_IMAGES_CSP } from "./ConsoleGuard.js"
import { chrome, type Form, getPage, param, postAction, query, recordActions } from "./ConsoleRequest.js"
import { page } from "./Html.js"
import { checkUpload, readText, reloadFile } from "./MappingsCsvRoutes.js"
import { productMappingContent, type ProductPageInput, SHOWN_PRODUCTS } from "./ProductMappingView.js"

/**
 * Mapping by product (issue 34): a store product held orders wait on, the POD product it is printed
 * on, and one row per store variant proposed by size and colour, reviewed, then written in one
 * step through the same atomic write and check as every console edit; the page then says how many
 * held orders the rows released. Everything is read from the cached catalog: a page view asks the
 * POD API nothing.
 */

/** A review form has a row per store variant; more than this is not a form a person reviews. */
const MAX_ROWS = 500

interface PageRequest {
  readonly store: string | undefined
  readonly product: string | undefined
  readonly search: string
  readonly pod: string | undefined
  readonly front: string | undefined
  readonly back: string | undefined
  /** The choices made before "Show the designs", by store variant: a POD variant id, "" (later) or "ignore". */
  readonly picks: ReadonlyMap<string, string>
}

const storeVariantKey = (line: { readonly variantId: string; readonly sku: string }) => line.variantId || line.sku

const pageUrl = (params: Record<string, string | undefined>, anchor = "") =>
  `/console/mappings/products?${new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (v ? [[k, v]] : []))).toString()}${
    anchor === "" ? "" : `#${anchor}`
  }`

const podVariants = Effect.map(
  Effect.flatMap(CatalogRepo, (repo) => repo.entries),
  (entries) =>
    entries.map((e): PodVariantView => ({
      variantId: e.variantId,
      productId: e.productId,
      productName: e.productName,
      color: e.color,
      hexColor: e.hexColor,
      size: e.size,
      price: e.price,
      stockLabel: e.stockLabel,
      imageUrl: e.imageUrl
    }))
)

/** The store variants held orders wait on that no row of the table in force answers yet. */
const waitingLines = (storeKey: string) =>
  Effect.gen(function*() {
    const table = yield* (yield* MappingStore).tableFor(storeKey)
    const mapped = new Set(table.rows.flatMap((row) => {
      const cells = cellsOfRow(row)
      return [cells.store_sku, cells.store_variant_id].filter((c) => c !== "")
    }))
    const lines = yield* Effect.flatMap(AttentionRepo, (repo) => repo.unmatchedLines(storeKey))
    return lines.filter((line) => !mapped.has(line.sku) && !mapped.has(line.variantId))
  })

const words = (text: string) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== ""))

const productPage = (caller: Caller, request: PageRequest, flash: Notice | undefined) =>
  Effect.gen(function*() {
    const mappings = yield* MappingStore
    const storeKeys = mappings.storeKeys
    const storeKey = request.store !== undefined && storeKeys.includes(request.store) ? request.store : storeKeys[0]
    const storeProducts = storeKey === undefined ? [] : storeProductsOf(yield* waitingLines(storeKey))
    const chosen = storeProducts.find((p) => p.key === request.product)
    // The catalog is read only once a store product is chosen.
    const products = chosen === undefined ? [] : podProductsOf(yield* podVariants)
    const titleWords = words(chosen?.title ?? "")
    const shared = (name: string) => [...words(name)].filter((w) => titleWords.has(w)).length
    // Without a search, the products whose names share the most words with the store product's title first.
    const found = request.search.trim() === ""
      ? [...products].sort((a, b) => shared(b.name) - shared(a.name))
      : searchPodProducts(products, request.search)
    const pod = request.pod === undefined ? undefined : products.find((p) => p.productId === request.pod)
    const attribute = (side: "front" | "back") => {
      const name = chosen === undefined ? undefined : designAttribute(chosen.attributeNames, side)
      return name === undefined ? "" : `{{attr ${name}}}`
    }
    const input: ProductPageInput = {
      storeKeys,
      storeKey,
      file: storeKey === undefined ? undefined : mappings.fileOf(storeKey),
      csrfToken: caller.csrfToken,
      storeProducts,
      chosen,
      search: request.search,
      found: found.slice(0, SHOWN_PRODUCTS),
      foundTotal: found.length,
      catalogCached: chosen === undefined || products.length > 0,
      pod,
      review: chosen === undefined || pod === undefined ? [] : chosen.variants.map((line) => {
        const pick = request.picks.get(storeVariantKey(line))
        return {
          line,
          proposal: proposeVariant(line, pod),
          chosen: pick === undefined || pick === "ignore" ? undefined : pick,
          ignored: pick === "ignore"
        }
      }),
      front: request.front ?? attribute("front"),
      back: request.back ?? attribute("back"),
      flash
    }
    return HttpServerResponse.setHeader(
      htmlResponse(page(yield* chrome(caller, "Map a product", "mappings"), productMappingContent(input))),
      "content-security-policy",
      WEB_IMAGES_CSP
    )
  })

/** The rows a review form asks for: a POD variant chosen, or ignored; a row left for later is not among them. */
export const rowsOfForm = (form: Form): ReadonlyArray<Partial<MappingCells>> => {
  const count = Math.min(MAX_ROWS, Math.max(0, Number(param(form, "rows") ?? 0) || 0))
  const front = (param(form, "front") ?? "").trim()
  const back = (param(form, "back") ?? "").trim()
  return Array.from({ length: count }, (_, i) => {
    const store = { store_sku: (param(form, `sku_${i}`) ?? "").trim(), store_variant_id: (param(form, `variant_${i}`) ?? "").trim() }
    if (param(form, `ignore_${i}`) === "true") return { ...store, ignore: "true" }
    const pod = (param(form, `pod_${i}`) ?? "").trim()
    return pod === "" ? undefined : { ...store, pod_variant_id: pod, print_front: front, print_back: back }
  }).filter((cells): cells is NonNullable<typeof cells> => cells !== undefined)
}

const refused = (store: string, text: string, back: Record<string, string | undefined>) =>
  redirectWithFlash(pageUrl({ store, ...back }, "review"), { ok: false, text: fitText(text) })

const apply = postAction((caller, form) =>
  Effect.gen(function*() {
    const store = param(form, "store") ?? ""
    const back = { product: param(form, "product"), q: param(form, "q"), pod: param(form, "pod") }
    const designs = { front: param(form, "front") ?? "", back: param(form, "back") ?? "" }
    // "Show the designs": the same page with the typed designs, nothing written.
    if (param(form, "preview") !== undefined) {
      const count = Math.min(MAX_ROWS, Math.max(0, Number(param(form, "rows") ?? 0) || 0))
      const picks = new URLSearchParams(Array.from({ length: count }, (_, i): [string, string] => [
        storeVariantKey({ variantId: param(form, `variant_${i}`) ?? "", sku: param(form, `sku_${i}`) ?? "" }),
        param(form, `ignore_${i}`) === "true" ? "ignore" : param(form, `pod_${i}`) ?? ""
      ])).toString()
      return HttpServerResponse.redirect(pageUrl({ store, ...back, ...designs, picks }, "review"), {
        status: 303,
        headers: SECURITY_HEADERS
      })
    }
    const mappings = yield* MappingStore
    const file = mappings.fileOf(store)
    if (file === undefined) {
      return yield* redirectWithFlash("/console/mappings/products", { ok: false, text: fitText(`no store ${store}`) })
    }
    const rows = rowsOfForm(form)
    if (rows.length === 0) {
      return yield* refused(store, "nothing was written: choose a POD variant for at least one store variant, or tick ignore", {
        ...back,
        ...designs
      })
    }
    const before = yield* readText(file)
    const appended = withRowsAppended(before, rows)
    if (appended.missing.length > 0) {
      return yield* refused(store, `nothing was written: ${file} has no column ${appended.missing.join(", ")}; add it to its header`, {
        ...back,
        ...designs
      })
    }
    // The check of podsync check and of an upload: the rows must add no problem the file did not have.
    const name = path.basename(file)
    const errorsBefore = new Set((yield* checkUpload(name, before)).errors)
    const added = (yield* checkUpload(name, appended.text)).errors.filter((e) => !errorsBefore.has(e))
    if (added.length > 0) {
      return yield* refused(store, `nothing was written, the rows do not pass the check: ${added.join("; ")}`, { ...back, ...designs })
    }
    // Taken before the write: the re-plan it starts may release them before this answer is made.
    const held = yield* Effect.flatMap(AttentionRepo, (repo) => repo.heldUnmatched(store))
    return yield* rewriteMappingFile(file, before, appended.text, "map the product").pipe(
      Effect.flatMap((backup) =>
        Effect.gen(function*() {
          const stores = yield* reloadFile(file)
          const released = unblockedBy(yield* mappings.tableFor(store), held)
          yield* Effect.logInfo("console: product mapped").pipe(
            Effect.annotateLogs({ user: caller.session.user, store, file, rows: rows.length, released: released.length })
          )
          const ignored = rows.filter((r) => r.ignore === "true").length
          yield* recordActions(caller, [{
            kind: "mapping_product",
            outcome: "done",
            summary: `Product mapped: ${rows.length} row(s) written to ${file}${ignored === 0 ? "" : ` (${ignored} ignored)`}, ` +
              `${released.length} held order(s) released`,
            storeKey: store
          }])
          return yield* redirectWithFlash(pageUrl({ store }), {
            ok: true,
            text: fitText(
              `${rows.length} row(s) written to ${file}${ignored === 0 ? "" : ` (${ignored} ignored)`} (previous version in ${backup}); ` +
                `${released.length} held order(s) released: every line of them has a row now, and they are re-planned at once` +
                (stores.length > 1 ? ` (the file is also ${stores.filter((s) => s !== store).join(", ")}'s)` : "")
            )
          })
        })
      ),
      Effect.catchTag("MappingWriteError", (error) => refused(store, error.message, { ...back, ...designs }))
    )
  })
)

export const productMappingRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/console/mappings/products",
    getPage((caller) =>
      Effect.gen(function*() {
        const request: PageRequest = {
          store: yield* query("store"),
          product: yield* query("product"),
          search: (yield* query("q")) ?? "",
          pod: yield* query("pod"),
          front: yield* query("front"),
          back: yield* query("back"),
          picks: new Map(new URLSearchParams((yield* query("picks")) ?? ""))
        }
        return yield* withFlash(Notice, (flash) => productPage(caller, request, Option.getOrUndefined(flash)))
      })
    )
  ),
  HttpRouter.post("/console/mappings/products/apply", apply)
)
