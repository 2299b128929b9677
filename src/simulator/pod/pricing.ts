// Deterministic price quotes in integer cents, obeying
// total = subtotal + shipping + tax + fees − discount (for the order and each line).
import type { CatalogVariant } from "./catalog.js"
import type { ShippingMethod } from "./enums.js"

export interface PricedLineInput {
  readonly variant: CatalogVariant
  readonly quantity: number
  readonly locationCount: number
}

export interface ShippingInput {
  readonly countryCode: string
  readonly stateCode: string
  readonly method: ShippingMethod
  readonly labeled: boolean
}

export interface PricedLine {
  readonly quantity: number
  readonly unitBase: number
  readonly itemPrice: number
  readonly subTotal: number
  readonly tax: number
  readonly fee: number
  readonly discount: number
  readonly total: number
}

export interface Fee {
  readonly code: string
  readonly amount: number
}

export interface Quote {
  readonly lines: ReadonlyArray<PricedLine>
  readonly subTotal: number
  readonly shipping: number
  readonly tax: number
  readonly fees: ReadonlyArray<Fee>
  readonly fee: number
  readonly giftMessageFee: number
  readonly handleFee: number
  readonly discount: number
  readonly total: number
}

/** Each print location beyond the first costs this much per item. */
export const EXTRA_LOCATION_CENTS = 300
export const GIFT_MESSAGE_CENTS = 75
export const HANDLE_FEE_CENTS = 25
export const LABEL_HANDLE_FEE_CENTS = 40
/** Orders of at least this many items get VOLUME_DISCOUNT_PERCENT off the subtotal. */
export const VOLUME_DISCOUNT_ITEMS = 10
export const VOLUME_DISCOUNT_PERCENT = 5

const US_SALES_TAX_BP: Readonly<Record<string, number>> = {
  CA: 725,
  NY: 400,
  TX: 625,
  WA: 650,
  FL: 600,
  IL: 625,
  PA: 600,
  NJ: 663,
  OH: 575,
  GA: 400
}
const EU = new Set([
  "AT",
  "BE",
  "BG",
  "HR",
  "CY",
  "CZ",
  "DK",
  "EE",
  "FI",
  "FR",
  "DE",
  "GR",
  "HU",
  "IE",
  "IT",
  "LV",
  "LT",
  "LU",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SK",
  "SI",
  "ES",
  "SE"
])

/** Tax rate in basis points. EU VAT is not charged when an IOSS number is given. */
export const taxRateBp = (countryCode: string, stateCode: string, iossNumber: string | null): number => {
  const country = countryCode.toUpperCase()
  if (country === "US") return US_SALES_TAX_BP[stateCode.toUpperCase()] ?? 0
  if (EU.has(country)) return iossNumber === null ? 2000 : 0
  if (country === "GB") return 2000
  if (country === "CA") return 500
  if (country === "AU") return 1000
  return 0
}

const SHIPPING_CENTS: Readonly<
  Record<ShippingMethod, readonly [domesticFirst: number, domesticNext: number, intlFirst: number, intlNext: number]>
> = {
  METHOD_STANDARD: [469, 219, 1299, 500],
  METHOD_GROUND: [599, 250, 1299, 500],
  METHOD_FAST_SHIP: [1299, 399, 2499, 800],
  METHOD_STAMP: [350, 100, 600, 200],
  // Economy ships in the US only (coverage.ts); the international figures are never charged.
  METHOD_ECONOMY: [399, 179, 1299, 500]
}

export const shippingCents = (shipping: ShippingInput, items: number): number => {
  if (shipping.labeled || items === 0) return 0
  const [domFirst, domNext, intFirst, intNext] = SHIPPING_CENTS[shipping.method]
  return shipping.countryCode.toUpperCase() === "US" ? domFirst + domNext * (items - 1) : intFirst + intNext * (items - 1)
}

const percentOf = (amount: number, basisPoints: number): number => Math.round((amount * basisPoints) / 10_000)

export const quote = (
  lines: ReadonlyArray<PricedLineInput>,
  shipping: ShippingInput,
  giftMessages: number,
  iossNumber: string | null
): Quote => {
  const items = lines.reduce((sum, line) => sum + line.quantity, 0)
  const discountBp = items >= VOLUME_DISCOUNT_ITEMS ? VOLUME_DISCOUNT_PERCENT * 100 : 0
  const rate = taxRateBp(shipping.countryCode, shipping.stateCode, iossNumber)
  const priced = lines.map((line): PricedLine => {
    const unitBase = line.variant.priceCents
    const itemPrice = unitBase + EXTRA_LOCATION_CENTS * Math.max(0, line.locationCount - 1)
    const subTotal = itemPrice * line.quantity
    const discount = Math.floor((subTotal * discountBp) / 10_000)
    const tax = percentOf(subTotal - discount, rate)
    return { quantity: line.quantity, unitBase, itemPrice, subTotal, tax, fee: 0, discount, total: subTotal + tax - discount }
  })
  const shippingFee = shippingCents(shipping, items)
  const fees: Array<Fee> = [{
    code: shipping.labeled ? "LABEL_HANDLE_FEE" : "HANDLE_FEE",
    amount: shipping.labeled ? LABEL_HANDLE_FEE_CENTS : HANDLE_FEE_CENTS
  }]
  if (giftMessages > 0) fees.push({ code: "GIFT_MESSAGE_FEE", amount: GIFT_MESSAGE_CENTS * giftMessages })
  const subTotal = priced.reduce((sum, line) => sum + line.subTotal, 0)
  const discount = priced.reduce((sum, line) => sum + line.discount, 0)
  const tax = priced.reduce((sum, line) => sum + line.tax, 0) + percentOf(shippingFee, rate)
  const fee = fees.reduce((sum, f) => sum + f.amount, 0)
  return {
    lines: priced,
    subTotal,
    shipping: shippingFee,
    tax,
    fees,
    fee,
    giftMessageFee: giftMessages > 0 ? GIFT_MESSAGE_CENTS * giftMessages : 0,
    handleFee: fees[0]?.amount ?? 0,
    discount,
    total: subTotal + shippingFee + tax + fee - discount
  }
}
