// Every validation rule of the spec for drafts (and the address limits the real
// service enforces), answered as the spec's 400 body naming the offending field.
import type { Catalog, CatalogVariant } from "./catalog.js"
import { productOf } from "./catalog.js"
import type { PrintLocation, ShippingMethod } from "./enums.js"
import { ADDRESS_TYPES, isOneOf, MARKETPLACE_PLATFORMS, PRINT_LOCATION_PREFIX, PRINT_LOCATIONS, SHIPPING_METHODS } from "./enums.js"
import { readMoney } from "./money.js"
import type { AddressRecord, PrintingOption } from "./state.js"
import type { FieldIssue, Json } from "./wire.js"
import { isRecord } from "./wire.js"

export class Issues {
  readonly list: Array<FieldIssue> = []
  add(field: string, issue: string): void {
    this.list.push({ field, issue })
  }
  get empty(): boolean {
    return this.list.length === 0
  }
}

/** A string of bounded length; `undefined` when absent (and not required). */
export const readText = (
  issues: Issues,
  value: unknown,
  field: string,
  min: number,
  max: number,
  required: boolean
): string | undefined => {
  if (value === undefined || value === null || (value === "" && !required && min === 0)) {
    if (required) issues.add(field, "is required")
    return undefined
  }
  if (typeof value !== "string") {
    issues.add(field, "must be a string")
    return undefined
  }
  if (value.length < min || value.length > max) {
    issues.add(
      field,
      min === max
        ? `must be exactly ${min} characters`
        : min > 0
        ? `must be ${min} to ${max} characters`
        : `must be at most ${max} characters`
    )
    return undefined
  }
  if (required && value.trim() === "") {
    issues.add(field, "is required")
    return undefined
  }
  return value
}

export const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}

const ADDRESS_FIELDS: ReadonlyArray<readonly [field: string, min: number, max: number, required: boolean]> = [
  ["first_name", 1, 50, true],
  ["last_name", 0, 35, false],
  ["company", 0, 50, false],
  ["contact_pronoun", 0, 50, false],
  ["street_1", 1, 50, true],
  ["street_2", 0, 35, false],
  ["state_code", 0, 3, false],
  ["state_name", 0, 40, false],
  ["city", 1, 30, true],
  ["zip_code", 1, 12, true],
  ["country_code", 2, 2, true],
  ["country_name", 0, 60, false],
  ["phone_no", 0, 50, false],
  ["email", 0, 255, false]
]

const PHONE = /^\+?[0-9(][0-9 ().-]{2,}[0-9)](\s*(x|ext\.?)\s*[0-9]{1,6})?$/i

export const readAddress = (issues: Issues, value: unknown, path: string): AddressRecord | undefined => {
  if (!isRecord(value)) {
    issues.add(path, value === undefined ? "is required" : "must be an object")
    return undefined
  }
  const out: Record<string, string> = {}
  for (const [field, min, max, required] of ADDRESS_FIELDS) {
    const text = readText(issues, value[field], `${path}.${field}`, min, max, required)
    if (text !== undefined) out[field] = text
  }
  const country = out["country_code"]
  if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) issues.add(`${path}.country_code`, "must be an ISO 3166-1 alpha-2 code")
  const state = out["state_code"]
  if (state !== undefined && !/^[A-Za-z0-9]{1,3}$/.test(state)) {
    issues.add(`${path}.state_code`, "must be the subdivision part of ISO 3166-2, e.g. CA")
  }
  const phone = out["phone_no"]
  if (phone !== undefined && (!PHONE.test(phone) || phone.replace(/[^0-9]/g, "").length < 4)) {
    issues.add(`${path}.phone_no`, "must be a valid phone number")
  }
  const type = value["type"]
  if (type !== undefined && !isOneOf(ADDRESS_TYPES, type)) issues.add(`${path}.type`, `must be one of ${ADDRESS_TYPES.join(", ")}`)
  return { ...out, type: isOneOf(ADDRESS_TYPES, type) ? type : "TYPE_SHIP_TO" }
}

export interface LineInput {
  readonly variant: CatalogVariant
  readonly quantity: number
  readonly printingOptions: ReadonlyArray<PrintingOption>
  readonly barcodeUrl: string | null
}

export const readLegacyId = (value: unknown): number | undefined => {
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return value
  if (typeof value === "string" && /^[1-9][0-9]*$/.test(value)) return Number(value)
  return undefined
}

/** One draft line item: variant_id xor legacy_id, quantity 1..1000, printing options with front or back. */
export const readLineItem = (issues: Issues, catalog: Catalog, value: unknown, path: string): LineInput | undefined => {
  if (!isRecord(value)) {
    issues.add(path, "must be an object")
    return undefined
  }
  const before = issues.list.length
  const hasVariant = value["variant_id"] !== undefined && value["variant_id"] !== null && value["variant_id"] !== ""
  const hasLegacy = value["legacy_id"] !== undefined && value["legacy_id"] !== null && value["legacy_id"] !== ""
  let variant: CatalogVariant | undefined
  if (hasVariant === hasLegacy) {
    issues.add(`${path}.variant_id`, "exactly one of variant_id or legacy_id must be set")
  } else if (hasVariant) {
    const id = value["variant_id"]
    variant = typeof id === "string" ? catalog.variantById.get(id) : undefined
    if (variant === undefined) issues.add(`${path}.variant_id`, "unknown variant")
  } else {
    const legacy = readLegacyId(value["legacy_id"])
    variant = legacy === undefined ? undefined : catalog.variantByLegacyId.get(legacy)
    if (legacy === undefined) issues.add(`${path}.legacy_id`, "must be a positive integer")
    else if (variant === undefined) issues.add(`${path}.legacy_id`, "unknown legacy variant id")
  }
  const quantity = value["quantity"]
  if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1 || quantity > 1000) {
    issues.add(`${path}.quantity`, "must be an integer from 1 to 1000")
  }
  const printingOptions = readPrintingOptions(
    issues,
    value["printing_options"],
    `${path}.printing_options`,
    variant === undefined ? undefined : productOf(catalog, variant).printLocations.map((l) => l.code)
  )
  const barcode = value["barcode_url"]
  if (barcode !== undefined && barcode !== null && barcode !== "" && (typeof barcode !== "string" || !isHttpUrl(barcode))) {
    issues.add(`${path}.barcode_url`, "must be a URL")
  }
  if (issues.list.length > before || variant === undefined || printingOptions === undefined) return undefined
  return {
    variant,
    quantity: quantity as number,
    printingOptions,
    barcodeUrl: typeof barcode === "string" && barcode !== "" ? barcode : null
  }
}

export const readPrintingOptions = (
  issues: Issues,
  value: unknown,
  path: string,
  offered: ReadonlyArray<string> | undefined
): ReadonlyArray<PrintingOption> | undefined => {
  if (!Array.isArray(value) || value.length === 0) {
    issues.add(path, "at least one printing option is required")
    return undefined
  }
  const before = issues.list.length
  const options: Array<PrintingOption> = []
  value.forEach((option: unknown, index) => {
    const at = `${path}[${index}]`
    if (!isRecord(option)) return issues.add(at, "must be an object")
    const code = option["location_code"]
    const location = typeof code === "string" && code.startsWith(PRINT_LOCATION_PREFIX)
      ? code.slice(PRINT_LOCATION_PREFIX.length)
      : undefined
    if (!isOneOf(PRINT_LOCATIONS, location)) {
      issues.add(`${at}.location_code`, `must be one of ${PRINT_LOCATIONS.map((l) => PRINT_LOCATION_PREFIX + l).join(", ")}`)
    } else if (offered !== undefined && !offered.includes(location.toLowerCase())) {
      issues.add(`${at}.location_code`, `this product cannot be printed at ${location.toLowerCase()}`)
    }
    const url = option["url"]
    if (typeof url !== "string" || !isHttpUrl(url)) issues.add(`${at}.url`, "must be the URL of a PNG, JPEG or PDF design")
    if (isOneOf(PRINT_LOCATIONS, location) && typeof url === "string") options.push({ location: location as PrintLocation, url })
  })
  if (issues.list.length > before) return undefined
  if (!options.some((o) => o.location === "FRONT" || o.location === "BACK")) {
    issues.add(path, "must include a front or back print")
    return undefined
  }
  return options
}

export const readLineItems = (issues: Issues, catalog: Catalog, value: unknown, path: string): Array<LineInput> => {
  if (!Array.isArray(value) || value.length < 1 || value.length > 1000) {
    issues.add(path, "must hold 1 to 1000 line items")
    return []
  }
  return value.flatMap((item: unknown, index) => readLineItem(issues, catalog, item, `${path}[${index}]`) ?? [])
}

export interface DraftHeader {
  readonly referenceId: string | null
  readonly platform: string
  readonly storeId: string
  readonly agreeAtRisk: boolean
  readonly giftMessageBody: string | null
  readonly autoApprove: boolean
}

/** The fields both draft-creation operations share. */
export const readDraftHeader = (issues: Issues, data: Readonly<Record<string, unknown>>): DraftHeader => {
  const referenceId = readText(issues, data["reference_id"], "data.reference_id", 0, 255, false)
  const platform = data["platform"]
  if (!isOneOf(MARKETPLACE_PLATFORMS, platform)) {
    issues.add("data.platform", platform === undefined ? "is required" : "must be a MARKETPLACE_PLATFORM_* value")
  }
  const storeId = readText(issues, data["store_id"], "data.store_id", 1, 255, true)
  const agree = data["agree_at_risk"]
  if (agree !== undefined && typeof agree !== "boolean") issues.add("data.agree_at_risk", "must be a boolean")
  const gift = readText(issues, data["gift_message_body"], "data.gift_message_body", 0, 1000, false)
  const autoApprove = data["auto_approve"]
  if (autoApprove !== undefined && typeof autoApprove !== "boolean") issues.add("data.auto_approve", "must be a boolean")
  return {
    referenceId: referenceId === undefined || referenceId === "" ? null : referenceId,
    platform: typeof platform === "string" ? platform : "",
    storeId: storeId ?? "",
    agreeAtRisk: agree === true,
    giftMessageBody: gift === undefined || gift === "" ? null : gift,
    autoApprove: autoApprove !== false
  }
}

export const readShippingMethod = (issues: Issues, value: unknown, field: string): ShippingMethod => {
  if (value === undefined || value === null || value === "") return "METHOD_STANDARD"
  if (!isOneOf(SHIPPING_METHODS, value)) {
    issues.add(field, `must be one of ${SHIPPING_METHODS.join(", ")}`)
    return "METHOD_STANDARD"
  }
  return value
}

export interface BillingInput {
  readonly json: Json | null
  readonly iossNumber: string | null
}

export const readBillingOption = (issues: Issues, value: unknown, path: string): BillingInput => {
  if (value === undefined || value === null) return { json: null, iossNumber: null }
  if (!isRecord(value)) {
    issues.add(path, "must be an object")
    return { json: null, iossNumber: null }
  }
  const ioss = readText(issues, value["ioss_number"], `${path}.ioss_number`, 0, 50, false)
  const tax = readText(issues, value["tax_number"], `${path}.tax_number`, 0, 50, false)
  const out: Record<string, Json> = {}
  if (ioss !== undefined) out["ioss_number"] = ioss
  if (tax !== undefined) out["tax_number"] = tax
  for (const field of ["ioss_value", "tax_value"] as const) {
    const money = value[field]
    if (money === undefined || money === null) continue
    const read = readMoney(money)
    if ("issue" in read) issues.add(`${path}.${field}`, read.issue)
    else out[field] = money as Json
  }
  return { json: out, iossNumber: ioss === undefined || ioss === "" ? null : ioss }
}
