import { Either, ParseResult, Schema } from "effect"
import type { NormalizedLine, NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { MarketplacePlatform } from "../domain/PodEnums.js"
import type { StoreKind } from "../domain/StoreTypes.js"
import { type CreateDraftInput, DraftAddressInput, type DraftLineItemInput } from "../pod/schemas/DraftRequests.js"
import { ECONOMY, economyDestination, economyDestinationProblem, type EconomyUncoveredPolicy } from "./EconomyShipping.js"
import { type CatalogLookup, findRow, type MappingRow, type MappingTable, skuTypedAsVariantId } from "../domain/MappingTable.js"
import * as ReferenceId from "../domain/ReferenceId.js"
import { type OrderFixes, variantFixOf } from "../domain/OrderFix.js"

/**
 * The match stage, pure: what to do with one store order given its store's
 * variant-matching table and the cached POD catalog. Every reason to hold is
 * collected, in words a seller can act on, not only the first.
 */

export type HoldCode =
  | "unpaid"
  | "unmatched"
  | "unknown_variant"
  | "discontinued"
  | "out_of_stock"
  | "missing_design"
  | "address"
  | "rejected_by_pod"
  /** Economy to a destination the service refuses it for (outside the US, military, offshore). */
  | "economy_unavailable"
  /** Economy to a US ZIP its carrier does not serve, with `shipping.economyUncovered: hold` (the draft stage decides it). */
  | "economy_uncovered"
  /** `<store key>:<store order id>` is longer than the 255 characters the service takes as a reference id. */
  | "reference_too_long"
  /** The store withheld what the draft needs (the buyer's address, a line's variant): the app lacks access to it. */
  | "withheld_by_store"

export interface HoldProblem {
  readonly code: HoldCode
  readonly message: string
  readonly lineId?: string
}

export interface PlannedLine {
  readonly lineId: string
  readonly quantity: number
  readonly mappingLine: number
}

export type DraftPlan =
  | { readonly _tag: "Ready"; readonly draft: CreateDraftInput; readonly lines: ReadonlyArray<PlannedLine> }
  | { readonly _tag: "Held"; readonly code: HoldCode; readonly message: string; readonly problems: ReadonlyArray<HoldProblem> }
  | { readonly _tag: "Cancelled" }
  | { readonly _tag: "NotPod"; readonly message: string }

export interface StoreSettings {
  readonly storeKey: string
  readonly platform: StoreKind
  readonly podStoreId: string
  readonly shipping: {
    readonly default: NonNullable<CreateDraftInput["shipping_method"]>
    readonly byTitle: Readonly<Record<string, NonNullable<CreateDraftInput["shipping_method"]>>>
    /** An Economy order to an uncovered US ZIP: sent as Standard (the default) or held. */
    readonly economyUncovered?: EconomyUncoveredPolicy
  }
  readonly eligibleFinancialStatuses: ReadonlyArray<string>
  /** The store's mapping file as configured: the hint of an unmatched line names it. */
  readonly mappingFile?: string | undefined
  readonly billing?: { readonly iossNumber?: string | undefined; readonly taxNumber?: string | undefined } | undefined
}

const PLATFORMS: Record<StoreKind, MarketplacePlatform> = {
  shopify: "MARKETPLACE_PLATFORM_SHOPIFY",
  woocommerce: "MARKETPLACE_PLATFORM_WOOCOMMERCE",
  etsy: "MARKETPLACE_PLATFORM_ETSY",
  // A custom storefront: the service's own platform is the honest fit.
  jsonfeed: "MARKETPLACE_PLATFORM_GEARMENT"
}

const describeLine = (line: NormalizedLine) =>
  `"${line.title}${line.variantTitle ? ` / ${line.variantTitle}` : ""}"` +
  (line.sku ? ` (SKU ${line.sku})` : line.variantId ? ` (variant ${line.variantId})` : "")

const STOCK_HOLDS: Record<string, { code: HoldCode; words: string }> = {
  VENDOR_CATALOG_VARIANT_STOCK_LABEL_DISCONTINUED: { code: "discontinued", words: "is discontinued: map the item to another POD variant" },
  VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK: {
    code: "out_of_stock",
    words: "is out of stock; the order is released when it is back"
  },
  VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK_5D: {
    code: "out_of_stock",
    words: "is out of stock (expected back within 5 days); the order is released when it is back"
  }
}

const attributeValue = (line: NormalizedLine, name: string) =>
  (line.attributes.find((a) => a.key === name) ?? line.attributes.find((a) => a.key.toLowerCase() === name.toLowerCase()))?.value.trim()

const planLine = (
  line: NormalizedLine,
  row: MappingRow,
  pod: NonNullable<MappingRow["pod"]>,
  catalog: CatalogLookup | undefined,
  problems: Array<HoldProblem>
): DraftLineItemInput | undefined => {
  const podName = "variantId" in pod ? `POD variant ${pod.variantId}` : `POD legacy variant ${pod.legacyId}`
  if (catalog !== undefined) {
    // A variant missing from the cache is not held for: the cache may be partial (a refresh still
    // filling it, or one that failed midway), and the service itself refuses a truly unknown variant
    // with a 400 that holds the order with its field details. `podsync check` reports unknown rows.
    const entry = catalog(pod)
    // ...but a SKU typed where the variant id belongs is known to be wrong: say which variant it is.
    const skuOf = entry === undefined && "variantId" in pod ? catalog({ sku: pod.variantId }) : undefined
    if (skuOf !== undefined && "variantId" in pod) {
      problems.push({
        code: "unknown_variant",
        lineId: line.lineId,
        message: `${describeLine(line)}: mapping line ${row.line}: ${skuTypedAsVariantId(pod.variantId, skuOf)}`
      })
      return undefined
    }
    const hold = entry === undefined ? undefined : STOCK_HOLDS[entry.stockLabel]
    if (hold !== undefined) {
      problems.push({
        code: hold.code,
        lineId: line.lineId,
        message: `${describeLine(line)}: ${podName} (${entry?.name ?? "?"}) ${hold.words}`
      })
      return undefined
    }
  }
  const printing: Array<{ location_code: DraftLineItemInput["printing_options"][number]["location_code"]; url: string }> = []
  for (const print of row.prints) {
    if (print.source._tag === "Url") {
      printing.push({ location_code: print.location, url: print.source.url })
      continue
    }
    const value = attributeValue(line, print.source.name)
    if (value === undefined || value === "") {
      problems.push({
        code: "missing_design",
        lineId: line.lineId,
        message: `${describeLine(line)} has no "${print.source.name}" custom attribute, which mapping line ${row.line} uses as its design`
      })
    } else if (!/^https?:\/\/\S+$/i.test(value)) {
      problems.push({
        code: "missing_design",
        lineId: line.lineId,
        message: `${describeLine(line)}: its "${print.source.name}" attribute is not a design URL ("${value.slice(0, 80)}")`
      })
    } else {
      printing.push({ location_code: print.location, url: value })
    }
  }
  return {
    ...("variantId" in pod ? { variant_id: pod.variantId } : { legacy_id: Number(pod.legacyId) }),
    quantity: line.fulfillableQuantity,
    printing_options: printing,
    ...(row.barcodeUrl !== undefined ? { barcode_url: row.barcodeUrl } : {})
  }
}

/** A line no mapping row matches whose variant or product the store withheld: said as such, not as unmatched. */
const withheldLine = (order: NormalizedOrder, line: NormalizedLine): HoldProblem | undefined => {
  const prefix = `lines.${line.lineId}.`
  const entries = (order.withheld ?? []).filter((w) => w.fields.some((f) => f.startsWith(prefix)))
  if (entries.length === 0) return undefined
  return {
    code: "withheld_by_store",
    lineId: line.lineId,
    message: `${describeLine(line)}: the store withheld its variant, so no mapping row by variant id can match it: ${
      [...new Set(entries.map((w) => w.reason))].join("; ")
    }`
  }
}

const ADDRESS_LABELS: Record<string, string> = {
  first_name: "first name",
  last_name: "last name",
  company: "company",
  street_1: "address line 1",
  street_2: "address line 2",
  state_code: "state/province code",
  state_name: "state/province",
  city: "city",
  zip_code: "postal code",
  country_code: "country code",
  phone_no: "phone"
}

/** What a seller does about an address the POD service would refuse. */
const FIX_ADDRESS = "fix the address in the store, or correct it for the POD draft on the order's page in the console"

const decodeAddress = Schema.decodeUnknownEither(DraftAddressInput, { errors: "all" })
const PHONE = /^\+?[\d\s().-]{4,50}$/

/** What the store withheld of the buyer's details, and why (the connector's words). */
const withheldBuyer = (order: AddressSource): HoldProblem | undefined => {
  const entries = (order.withheld ?? []).filter((w) => w.fields.some((f) => f === "email" || f.startsWith("shipTo.")))
  if (entries.length === 0) return undefined
  const fields = entries.flatMap((w) => w.fields.filter((f) => f === "email" || f.startsWith("shipTo.")))
  const what = [...new Set(fields.map((f) => WITHHELD_WORDS[f] ?? f.replace(/^shipTo\./, "")))].join(", ")
  return {
    code: "withheld_by_store",
    message: `the store withheld the buyer's ${what} from podsync, so the order cannot be drafted: ${
      [...new Set(entries.map((w) => w.reason))].join("; ")
    }`
  }
}

const WITHHELD_WORDS: Readonly<Record<string, string>> = {
  email: "email",
  "shipTo.name": "name",
  "shipTo.firstName": "name",
  "shipTo.lastName": "name",
  "shipTo.line1": "address",
  "shipTo.line2": "address",
  "shipTo.city": "address",
  "shipTo.countryCode": "country",
  "shipTo.postalCode": "postal code",
  "shipTo.phone": "phone"
}

/** What of an order its draft address is made from. */
type AddressSource = Pick<NormalizedOrder, "shipTo"> & Partial<Pick<NormalizedOrder, "email" | "withheld">>

export const buildAddress = (order: AddressSource, problems: Array<HoldProblem>): CreateDraftInput["address"] | undefined => {
  // What is missing because the store withheld it is said as such, not as an address to fix.
  const withheld = withheldBuyer(order)
  if (withheld !== undefined) {
    problems.push(withheld)
    return undefined
  }
  const to = order.shipTo
  if (to === null) {
    problems.push({ code: "address", message: "the order has no shipping address" })
    return undefined
  }
  const [first, ...rest] = to.name.trim().split(/\s+/)
  const candidate = {
    first_name: to.firstName ?? first ?? "",
    ...(to.lastName ?? rest.join(" ") ? { last_name: to.lastName ?? rest.join(" ") } : {}),
    ...(to.company ? { company: to.company } : {}),
    street_1: to.line1 ?? "",
    ...(to.line2 ? { street_2: to.line2 } : {}),
    ...(to.regionCode ? { state_code: to.regionCode.replace(/^[A-Z]{2}-/, "") } : {}),
    ...(to.region ? { state_name: to.region } : {}),
    city: to.city ?? "",
    zip_code: to.postalCode ?? "",
    country_code: to.countryCode ?? "",
    ...(to.country ? { country_name: to.country } : {}),
    ...(to.phone ? { phone_no: to.phone } : {}),
    ...(order.email ? { email: order.email } : {}),
    type: "TYPE_SHIP_TO" as const
  }
  const decoded = decodeAddress(candidate)
  if (Either.isLeft(decoded)) {
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
      const field = String(issue.path[0] ?? "")
      const value = (candidate as Record<string, unknown>)[field]
      const label = ADDRESS_LABELS[field] ?? field
      const detail = typeof value === "string" && value !== "" ? ` (it is "${value}", ${value.length} characters)` : " (it is empty)"
      problems.push({
        code: "address",
        message: `shipping address ${label} (${field}) does not meet the POD service's limit: ${
          issue.message.split(", actual")[0]
        }${detail}; ${FIX_ADDRESS}`
      })
    }
    return undefined
  }
  if (decoded.right.phone_no !== undefined && !PHONE.test(decoded.right.phone_no)) {
    problems.push({
      code: "address",
      message: `shipping address phone (phone_no) "${decoded.right.phone_no}" is not a valid phone number; ${FIX_ADDRESS}`
    })
    return undefined
  }
  return decoded.right
}

const shippingMethodFor = (order: NormalizedOrder, settings: StoreSettings) => {
  const entries = Object.entries(settings.shipping.byTitle)
  const match = (value: string | undefined) =>
    value === undefined ? undefined : entries.find(([title]) => title.toLowerCase() === value.toLowerCase())?.[1]
  return match(order.shippingMethod?.title) ?? match(order.shippingMethod?.code) ?? settings.shipping.default
}

/**
 * The five-digit ZIP whose Economy coverage decides how an order ships, read straight from the
 * order (so a batch's ZIPs can be checked together before each is planned); undefined when its
 * shipping is not Economy or planning holds it anyway (no usable US ZIP).
 */
export const economyZipFor = (storeOrder: NormalizedOrder, settings: StoreSettings, fixes?: OrderFixes): string | undefined => {
  const order = withFixedAddress(storeOrder, fixes)
  if (shippingMethodFor(order, settings) !== ECONOMY || order.shipTo === null) return undefined
  const to = order.shipTo
  const destination = economyDestination({
    country_code: to.countryCode ?? "",
    state_code: to.regionCode?.replace(/^[A-Z]{2}-/, ""),
    zip_code: to.postalCode ?? ""
  })
  return destination._tag === "Zip" ? destination.zip5 : undefined
}

const giftMessageOf = (order: NormalizedOrder) =>
  order.attributes.find((a) => /^gift[ _-]?message$/i.test(a.key))?.value.trim().slice(0, 1000) || undefined

/** Why an order cannot have a reference id, and what the seller can do: the id comes from the store, the key from the config. */
const referenceProblem = (error: ReferenceId.ReferenceIdError): HoldProblem => ({
  code: "reference_too_long",
  message: error.problem === "too_long"
    ? `the store's order id is ${
      ReferenceId.lengthOf(error.storeOrderId)
    } characters long: with the store key "${error.storeKey}" its reference id ` +
      `would be ${error.length} characters, more than the ${ReferenceId.MAX_LENGTH} the POD service accepts, so podsync cannot draft it. Create ` +
      `this order at the POD service by hand; if the store's order ids are often this long, use a shorter store key in the config ` +
      `(only for a new store: a key must not change once its orders have drafts)`
    : `the order has no usable store order id (${error.message}): create it at the POD service by hand`
})

/**
 * The order as its draft is planned: with the shipping address a person corrected in the console
 * (what the store withheld of the address no longer holds it then). The store's copy is unchanged.
 */
export const withFixedAddress = (order: NormalizedOrder, fixes: OrderFixes | undefined): NormalizedOrder => {
  if (fixes?.address === undefined) return order
  const withheld = (order.withheld ?? [])
    .map((w) => ({ ...w, fields: w.fields.filter((f) => !f.startsWith("shipTo.")) }))
    .filter((w) => w.fields.length > 0)
  return { ...order, shipTo: fixes.address.shipTo, ...(order.withheld === undefined ? {} : { withheld }) }
}

/**
 * What keeps `shipTo` from being a draft's address under the pipeline's rules (the POD service's
 * limits, a phone that is a phone), in a seller's words; empty when it would be drafted as it is.
 */
export const addressProblems = (shipTo: NormalizedOrder["shipTo"]): ReadonlyArray<string> => {
  const problems: Array<HoldProblem> = []
  buildAddress({ shipTo }, problems)
  return problems.map((p) => p.message.replace(`; ${FIX_ADDRESS}`, ""))
}

/** `fixes`: what a person fixed of this order in the console (OrderFix.ts), applied over the store's copy. */
export const planDraft = (
  storeOrder: NormalizedOrder,
  table: MappingTable,
  catalog: CatalogLookup | undefined,
  settings: StoreSettings,
  fixes?: OrderFixes
): DraftPlan => {
  const order = withFixedAddress(storeOrder, fixes)
  if (order.cancelled) return { _tag: "Cancelled" }
  const problems: Array<HoldProblem> = []
  const eligible = settings.eligibleFinancialStatuses.map((s) => s.toLowerCase())
  if (!eligible.includes(order.financialStatus)) {
    problems.push({
      code: "unpaid",
      message: `financial status is "${order.financialStatus}", not one of ${eligible.join(", ")}: it is drafted once paid`
    })
  }

  const toShip = order.lines.filter((l) => l.fulfillableQuantity > 0 && l.requiresShipping)
  const items: Array<DraftLineItemInput> = []
  const planned: Array<PlannedLine> = []
  let ignored = 0
  for (const line of toShip) {
    const row = findRow(table, line)
    const lineWithheld = row === undefined ? withheldLine(order, line) : undefined
    if (lineWithheld !== undefined) {
      problems.push(lineWithheld)
      continue
    }
    if (row === undefined) {
      problems.push({
        code: "unmatched",
        lineId: line.lineId,
        message: `no mapping row for ${describeLine(line)}: add its variant id or SKU to ${
          settings.mappingFile ?? "the store's mapping file"
        }`
      })
      continue
    }
    if (row.ignore) {
      ignored++
      continue
    }
    if (row.pod === undefined) {
      throw new Error(`mapping line ${row.line} has no POD variant and is not ignore: the mapping parser refuses such a row`)
    }
    const item = planLine(line, row, variantFixOf(fixes, line.lineId)?.pod ?? row.pod, catalog, problems)
    if (item !== undefined) {
      items.push(item)
      planned.push({ lineId: line.lineId, quantity: line.fulfillableQuantity, mappingLine: row.line })
    }
  }
  if (problems.length === 0 && items.length === 0) {
    return {
      _tag: "NotPod",
      message: toShip.length === 0 ? "nothing left to ship" : `all ${ignored} items are marked ignore in the mapping (fulfilled elsewhere)`
    }
  }
  const referenceId = ReferenceId.make(settings.storeKey, order.storeOrderId)
  if (Either.isLeft(referenceId)) problems.push(referenceProblem(referenceId.left))
  const address = buildAddress(order, problems)
  const shippingMethod = shippingMethodFor(order, settings)
  if (address !== undefined && shippingMethod === ECONOMY) {
    const economy = economyDestinationProblem(economyDestination(address))
    if (economy !== undefined) problems.push(economy)
  }
  const first = problems[0]
  if (first !== undefined) {
    const message = problems.length === 1
      ? first.message
      : `${problems.length} problems: ${problems.map((p, i) => `(${i + 1}) ${p.message}`).join("; ")}`
    return { _tag: "Held", code: first.code, message, problems }
  }
  if (address === undefined || Either.isLeft(referenceId)) {
    throw new Error("planDraft: no address or no reference id, yet no problem recorded (buildAddress and referenceProblem each record one)")
  }
  const billing = settings.billing
  const gift = giftMessageOf(order)
  return {
    _tag: "Ready",
    lines: planned,
    draft: {
      reference_id: referenceId.right,
      platform: PLATFORMS[settings.platform],
      store_id: settings.podStoreId,
      address,
      shipping_method: shippingMethod,
      line_items: items,
      ...(billing?.iossNumber || billing?.taxNumber
        ? {
          billing_option: {
            ...(billing.iossNumber ? { ioss_number: billing.iossNumber } : {}),
            ...(billing.taxNumber ? { tax_number: billing.taxNumber } : {})
          }
        }
        : {}),
      ...(gift !== undefined ? { gift_message_body: gift } : {})
    }
  }
}
