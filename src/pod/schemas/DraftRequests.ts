/**
 * Bodies of the draft-writing operations. They carry the spec's limits (and
 * the address limits the real service enforces, ARCHITECTURE.md) so a request
 * the service would refuse is caught before it spends the rate budget.
 */
import { Schema } from "effect"
import * as E from "../../domain/PodEnums.js"
import { BillingOption } from "./Common.js"

const optional = Schema.optional
const text = (min: number, max: number) => Schema.String.pipe(Schema.minLength(min), Schema.maxLength(max))
const upTo = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** `address` of a draft: limits from the real service's public SDK. */
export const DraftAddressInput = Schema.Struct({
  first_name: text(1, 50),
  last_name: optional(upTo(35)),
  company: optional(upTo(50)),
  contact_pronoun: optional(Schema.String),
  street_1: text(1, 50),
  street_2: optional(upTo(35)),
  state_code: optional(upTo(3)),
  state_name: optional(upTo(40)),
  city: text(1, 30),
  zip_code: text(1, 12),
  country_code: Schema.String.pipe(Schema.length(2)),
  country_name: optional(Schema.String),
  phone_no: optional(upTo(50)),
  email: optional(Schema.String),
  type: optional(Schema.Literal(...E.AddressTypes))
}).annotations({ identifier: "DraftAddressInput" })
export type DraftAddressInput = typeof DraftAddressInput.Type

export const PrintingOptionInput = Schema.Struct({
  location_code: Schema.Literal(...E.PrintLocationCodes),
  url: Schema.String.pipe(Schema.minLength(1))
}).annotations({ identifier: "PrintingOptionInput" })
export type PrintingOptionInput = typeof PrintingOptionInput.Type

const PrintingOptions = Schema.Array(PrintingOptionInput).pipe(
  Schema.minItems(1),
  Schema.filter(
    (options) =>
      options.some((o) => o.location_code === "PRINT_LOCATION_CODE_FRONT" || o.location_code === "PRINT_LOCATION_CODE_BACK") ||
      "printing_options must include a front or a back design",
    { identifier: "PrintingOptionsWithFrontOrBack" }
  )
)

const Quantity = Schema.Int.pipe(Schema.between(1, 1000))

const variantXorLegacy = <A extends { readonly variant_id?: string | undefined; readonly legacy_id?: number | string | undefined }>(
  item: A
) =>
  (item.variant_id === undefined) !== (item.legacy_id === undefined) ||
  "give exactly one of variant_id and legacy_id"

/** What a line of a new draft and a patched line both give: the variant (one of two ids), how many, the designs. */
const LineItemFields = {
  variant_id: optional(text(1, 100)),
  legacy_id: optional(Schema.Union(Schema.Int, Schema.String)),
  quantity: Quantity,
  printing_options: PrintingOptions,
  barcode_url: optional(Schema.String)
}

export const DraftLineItemInput = Schema.Struct(LineItemFields)
  .pipe(Schema.filter(variantXorLegacy))
  .annotations({ identifier: "DraftLineItemInput" })
export type DraftLineItemInput = typeof DraftLineItemInput.Type

const LineItems = <A, I>(item: Schema.Schema<A, I>) => Schema.Array(item).pipe(Schema.minItems(1), Schema.maxItems(1000))

/** The fields both create bodies open with: whose draft it is, for which store. */
const DraftHead = {
  reference_id: optional(text(1, 255)),
  platform: Schema.Literal(...E.MarketplacePlatforms),
  store_id: Schema.String.pipe(Schema.minLength(1)),
  agree_at_risk: optional(Schema.Boolean)
}

/** The fields both create bodies close with: the gift message, the lines, approval. */
const DraftTail = {
  gift_message_body: optional(upTo(1000)),
  line_items: LineItems(DraftLineItemInput),
  auto_approve: optional(Schema.Boolean)
}

/** `data` of POST /api/v3/orders/draft. `auto_approve` is the real service's (omitted means true). */
export const CreateDraftInput = Schema.Struct({
  ...DraftHead,
  address: DraftAddressInput,
  shipping_method: optional(Schema.Literal(...E.ShippingMethods)),
  billing_option: optional(BillingOption),
  ...DraftTail
}).annotations({ identifier: "CreateDraftInput" })
export type CreateDraftInput = typeof CreateDraftInput.Type

/** `data` of POST /api/v3/orders/draft/labeled. */
export const CreateLabeledDraftInput = Schema.Struct({
  ...DraftHead,
  shipping_label_urls: Schema.Array(Schema.String).pipe(Schema.minItems(1)),
  ...DraftTail
}).annotations({ identifier: "CreateLabeledDraftInput" })
export type CreateLabeledDraftInput = typeof CreateLabeledDraftInput.Type

export const PatchLineItemInput = Schema.Struct({ line_item_id: Schema.String.pipe(Schema.minLength(1)), ...LineItemFields })
  .pipe(Schema.filter(variantXorLegacy))
  .annotations({ identifier: "PatchLineItemInput" })
export type PatchLineItemInput = typeof PatchLineItemInput.Type

/** Body of PATCH /api/v3/orders/draft/line-items. */
export const PatchDraftLineItemsInput = Schema.Struct({
  order_id: text(1, 255),
  line_items: LineItems(PatchLineItemInput)
}).annotations({ identifier: "PatchDraftLineItemsInput" })
export type PatchDraftLineItemsInput = typeof PatchDraftLineItemsInput.Type

/** The create bodies wrap the draft in `data`. */
export const CreateDraftBody = Schema.Struct({ data: CreateDraftInput })
export const CreateLabeledDraftBody = Schema.Struct({ data: CreateLabeledDraftInput })
