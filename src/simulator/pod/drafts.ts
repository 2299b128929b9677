// Order drafts (v3): create (with address or with a pre-purchased label),
// list, read, change line items, approve.
import type { EconomyCoverage } from "./coverage.js"
import { CREATED_METHODS, DRAFT_STATUS_PREFIX, DRAFT_STATUSES } from "./enums.js"
import { listAnswer, matchesFilters, readListFilters } from "./listing.js"
import type { Route, RouteContext } from "./routes.js"
import type { DraftRecord, LineRecord, SimState } from "./state.js"
import type { LineInput } from "./validation.js"
import {
  isHttpUrl,
  Issues,
  readAddress,
  readBillingOption,
  readDraftHeader,
  readLegacyId,
  readLineItems,
  readPrintingOptions,
  readShippingMethod,
  readText
} from "./validation.js"
import { productOf } from "./catalog.js"
import { draftView } from "./views.js"
import type { SimResponse } from "./wire.js"
import { errorBody, invalidArgument, isRecord, notFound, success } from "./wire.js"

/** A shipping address with this zip code cannot be verified (a test hook: the real service's rules are not published). */
export const UNVERIFIABLE_ZIP_CODE = "00000"

export const toLineRecord = (state: SimState, input: LineInput): LineRecord => ({
  id: state.nextLineId(),
  lineItemId: state.newId(),
  variant: input.variant,
  quantity: input.quantity,
  printingOptions: input.printingOptions,
  barcodeUrl: input.barcodeUrl
})

export interface NewDraft {
  readonly referenceId: string | null
  readonly platform: string
  readonly storeId: string
  readonly createdMethod: string
  readonly address: DraftRecord["address"]
  readonly shippingMethod: DraftRecord["shippingMethod"]
  readonly substitution?: DraftRecord["substitution"]
  readonly billingOption: DraftRecord["billingOption"]
  readonly iossNumber: string | null
  readonly giftMessageBody: string | null
  readonly labelUrls: ReadonlyArray<string>
  readonly agreeAtRisk: boolean
  readonly autoApprove: boolean
  readonly lines: ReadonlyArray<LineInput>
}

/** Stores a new draft. Approved drafts wait for checkout (AWAITING_CHECKOUT); others stay DRAFT. */
export const createDraft = (state: SimState, input: NewDraft): DraftRecord => {
  const now = state.now()
  const draft: DraftRecord = {
    id: state.newId(),
    legacyNumber: state.nextLegacyNumber(),
    referenceId: input.referenceId,
    platform: input.platform,
    storeId: input.storeId,
    createdMethod: input.createdMethod,
    requestId: state.newId(),
    address: input.address,
    shippingMethod: input.shippingMethod,
    ...(input.substitution === undefined ? {} : { substitution: input.substitution }),
    billingOption: input.billingOption,
    iossNumber: input.iossNumber,
    giftMessageBody: input.giftMessageBody,
    labelUrls: input.labelUrls,
    agreeAtRisk: input.agreeAtRisk,
    autoApprove: input.autoApprove,
    lineItems: input.lines.map((line) => toLineRecord(state, line)),
    status: input.autoApprove ? "AWAITING_CHECKOUT" : "DRAFT",
    isApproved: input.autoApprove,
    approvedAt: input.autoApprove ? now : null,
    createdAt: now,
    updatedAt: now,
    originOrderId: null,
    addressVerified: input.address?.["zip_code"] !== UNVERIFIABLE_ZIP_CODE
  }
  state.addDraft(draft)
  if (!draft.addressVerified) state.emit({ topic: "TOPIC_SHIPPING_ADDRESS_UNVERIFIED", draft })
  return draft
}

const dataOf = (body: unknown, issues: Issues): Readonly<Record<string, unknown>> | undefined => {
  if (!isRecord(body) || !isRecord(body["data"])) {
    issues.add("data", "is required")
    return undefined
  }
  return body["data"]
}

const createHandler = (state: SimState, labeled: boolean, coverage?: EconomyCoverage) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const data = dataOf(context.body, issues)
  if (data === undefined) return invalidArgument(issues.list)
  const header = readDraftHeader(issues, data)
  const address = labeled ? null : readAddress(issues, data["address"], "data.address")
  const shippingMethod = readShippingMethod(issues, data["shipping_method"], "data.shipping_method")
  const billing = readBillingOption(issues, data["billing_option"], "data.billing_option")
  let labelUrls: ReadonlyArray<string> = []
  if (labeled) {
    const urls = data["shipping_label_urls"]
    if (!Array.isArray(urls) || urls.length === 0) issues.add("data.shipping_label_urls", "at least one shipping label URL is required")
    else {
      urls.forEach((url: unknown, i) => {
        if (typeof url !== "string" || !isHttpUrl(url)) issues.add(`data.shipping_label_urls[${i}]`, "must be a URL")
      })
      labelUrls = urls.filter((u): u is string => typeof u === "string")
    }
  }
  const economy = coverage?.forDraft(shippingMethod, address ?? null) ?? {}
  if ("refused" in economy) issues.add("data.shipping_method", `METHOD_ECONOMY is not available for this destination: ${economy.refused}`)
  const substitution = "substitution" in economy ? economy.substitution : undefined
  const lines = readLineItems(issues, state.catalog, data["line_items"], "data.line_items")
  if (!issues.empty) return invalidArgument(issues.list)
  const draft = createDraft(state, {
    ...header,
    createdMethod: labeled ? "VENDOR_CREATED_METHOD_LABEL" : "VENDOR_CREATED_METHOD_API",
    address: address ?? null,
    shippingMethod: substitution === undefined ? shippingMethod : "METHOD_STANDARD",
    ...(substitution === undefined ? {} : { substitution }),
    billingOption: billing.json,
    iossNumber: billing.iossNumber,
    labelUrls,
    lines
  })
  const warnings = draftWarnings(draft)
  return success(draftView(state.catalog, state.seed, draft, false), undefined, warnings.length === 0 ? {} : { warnings })
}

const STOCK_WARNINGS: Readonly<Record<string, string>> = {
  OUT_OF_STOCK_5D: "is at risk: out of stock for up to 5 days, production may be delayed",
  OUT_OF_STOCK: "is out of stock: the order waits until it is back in stock",
  DISCONTINUED: "is discontinued: the item cannot be produced"
}

/** The create answer's `warnings[]`: non-blocking problems with the draft's variants and address. */
export const draftWarnings = (draft: DraftRecord): ReadonlyArray<string> => [
  ...draft.lineItems.flatMap((line, index) => {
    const text = STOCK_WARNINGS[line.variant.stockLabel]
    return text === undefined ? [] : [`line_items[${index}]: variant ${line.variant.variantId} (${line.variant.sku}) ${text}`]
  }),
  ...(draft.labelUrls.length === 0 && !draft.addressVerified
    ? ["address: the shipping address could not be verified; the draft waits until it is corrected or confirmed"]
    : []),
  ...(draft.address !== null && /\bP\.?\s*O\.?\s*BOX\b/i.test(draft.address["street_1"] ?? "")
    ? ["address.street_1: a P.O. box; some carriers cannot deliver to it"]
    : [])
]

const listHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const filters = readListFilters(issues, context.query, CREATED_METHODS, DRAFT_STATUSES.map((s) => DRAFT_STATUS_PREFIX + s))
  if (!issues.empty) return invalidArgument(issues.list)
  const matching = [...state.drafts.values()].filter((d) => matchesFilters(filters, { ...d, status: DRAFT_STATUS_PREFIX + d.status }))
  return listAnswer(matching, filters, state.seed, (d) => draftView(state.catalog, state.seed, d, false))
}

const getHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const id = context.params["order_id"] ?? ""
  const draft = state.drafts.get(id)
  return draft === undefined ? notFound("draft", "order_id", id) : success(draftView(state.catalog, state.seed, draft, true))
}

// The published update body (VendorUpdateOrderDraftLineItemsRequest and its LineItem): both closed
// (additionalProperties: false), every field of a line but its id optional.
const UPDATE_FIELDS = ["order_id", "line_items"]
const LINE_UPDATE_FIELDS = ["line_item_id", "variant_id", "legacy_id", "quantity", "printing_options", "barcode_url"]

const unknownFields = (issues: Issues, value: Readonly<Record<string, unknown>>, known: ReadonlyArray<string>, path: string) => {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) issues.add(path === "" ? key : `${path}.${key}`, "is not a field of this request")
  }
}

const given = (value: unknown) => value !== undefined && value !== null

/**
 * One line of an update, as published: `line_item_id` names it; `variant_id` or `legacy_id` (not
 * both), `quantity`, `printing_options`, `barcode_url` each change only when given. A new variant
 * keeps the line's designs if its product can print them where they are.
 */
const readLineUpdate = (
  issues: Issues,
  state: SimState,
  line: LineRecord,
  item: Readonly<Record<string, unknown>>,
  path: string
): (() => void) | undefined => {
  const before = issues.list.length
  unknownFields(issues, item, LINE_UPDATE_FIELDS, path)
  const hasVariant = given(item["variant_id"]) && item["variant_id"] !== ""
  const hasLegacy = given(item["legacy_id"]) && item["legacy_id"] !== ""
  let variant = line.variant
  if (hasVariant && hasLegacy) issues.add(`${path}.variant_id`, "use variant_id or legacy_id, not both")
  else if (hasVariant) {
    const id = item["variant_id"]
    const found = typeof id === "string" ? state.catalog.variantById.get(id) : undefined
    if (found === undefined) issues.add(`${path}.variant_id`, "unknown variant")
    else variant = found
  } else if (hasLegacy) {
    const legacy = readLegacyId(item["legacy_id"])
    const found = legacy === undefined ? undefined : state.catalog.variantByLegacyId.get(legacy)
    if (legacy === undefined) issues.add(`${path}.legacy_id`, "must be a positive integer")
    else if (found === undefined) issues.add(`${path}.legacy_id`, "unknown legacy variant id")
    else variant = found
  }
  const quantity = item["quantity"]
  if (given(quantity) && (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1 || quantity > 1000)) {
    issues.add(`${path}.quantity`, "must be an integer from 1 to 1000")
  }
  const offered = productOf(state.catalog, variant).printLocations.map((l) => l.code)
  let printingOptions = line.printingOptions
  if (given(item["printing_options"])) {
    printingOptions = readPrintingOptions(issues, item["printing_options"], `${path}.printing_options`, offered) ?? printingOptions
  } else if (variant !== line.variant) {
    const unprintable = line.printingOptions.filter((o) => !offered.includes(o.location.toLowerCase()))
    for (const option of unprintable) {
      issues.add(
        `${path}.printing_options`,
        `the new variant's product cannot be printed at ${option.location.toLowerCase()}: send printing_options`
      )
    }
  }
  const barcode = item["barcode_url"]
  if (given(barcode) && barcode !== "" && (typeof barcode !== "string" || !isHttpUrl(barcode))) {
    issues.add(`${path}.barcode_url`, "must be a URL")
  }
  if (issues.list.length > before) return undefined
  return () => {
    line.variant = variant
    if (typeof quantity === "number") line.quantity = quantity
    line.printingOptions = printingOptions
    if (barcode !== undefined) line.barcodeUrl = typeof barcode === "string" && barcode !== "" ? barcode : null
  }
}

const patchLineItems = (state: SimState) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const body = isRecord(context.body) ? context.body : {}
  if (!isRecord(context.body)) issues.add("body", "must be a JSON object")
  unknownFields(issues, body, UPDATE_FIELDS, "")
  const id = readText(issues, body["order_id"], "order_id", 1, 255, true)
  const items = body["line_items"]
  if (!Array.isArray(items) || items.length < 1 || items.length > 1000) issues.add("line_items", "must hold 1 to 1000 line items")
  if (!issues.empty || id === undefined || !Array.isArray(items)) return invalidArgument(issues.list)
  const draft = state.drafts.get(id)
  if (draft === undefined) return notFound("draft", "order_id", id)
  if (draft.status === "CHECKED_OUT" || draft.status === "DELETED" || draft.status === "ARCHIVED") {
    return errorBody(400, "FAILED_PRECONDITION", `draft is ${draft.status.toLowerCase()} and can no longer change`, [{
      field: "order_id",
      issue: "draft can no longer change"
    }])
  }
  const updates: Array<() => void> = []
  items.forEach((item: unknown, index) => {
    const path = `line_items[${index}]`
    if (!isRecord(item)) return issues.add(path, "must be an object")
    const lineId = readText(issues, item["line_item_id"], `${path}.line_item_id`, 1, 255, true)
    const line = draft.lineItems.find((l) => l.lineItemId === lineId)
    if (lineId !== undefined && line === undefined) issues.add(`${path}.line_item_id`, "no such line item in this draft")
    const update = line === undefined ? undefined : readLineUpdate(issues, state, line, item, path)
    if (update !== undefined) updates.push(update)
  })
  if (!issues.empty) return invalidArgument(issues.list)
  for (const update of updates) update()
  draft.updatedAt = state.now()
  return success({ order_id: draft.id })
}

const approveHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const id = context.params["order_id"] ?? ""
  const draft = state.drafts.get(id)
  if (draft === undefined) return notFound("draft", "order_id", id)
  if (!draft.isApproved) {
    draft.isApproved = true
    draft.approvedAt = state.now()
    draft.updatedAt = draft.approvedAt
    if (draft.status === "DRAFT") draft.status = "AWAITING_CHECKOUT"
  }
  // The published answer carries no draft: `{ status, is_approved, message }`.
  return { status: 200, body: { status: "success", is_approved: true, message: "Order draft approved" } }
}

/** `coverage`: Economy drafts are checked against it (refused, or moved to Standard); without it they are kept as sent. */
export const draftRoutes = (state: SimState, coverage?: EconomyCoverage): ReadonlyArray<Route> => [
  { method: "GET", pattern: "/api/v3/orders/draft", auth: "v3", handle: listHandler(state) },
  { method: "POST", pattern: "/api/v3/orders/draft", auth: "v3", handle: createHandler(state, false, coverage) },
  { method: "POST", pattern: "/api/v3/orders/draft/labeled", auth: "v3", handle: createHandler(state, true) },
  { method: "PATCH", pattern: "/api/v3/orders/draft/line-items", auth: "v3", handle: patchLineItems(state) },
  { method: "GET", pattern: "/api/v3/orders/draft/:order_id", auth: "v3", handle: getHandler(state) },
  { method: "POST", pattern: "/api/v3/orders/draft/:order_id/approve", auth: "v3", handle: approveHandler(state) }
]
