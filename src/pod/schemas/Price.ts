/** Price quote (POST /api/v3/orders/price). Amounts are in USD unless stated otherwise. */
import { Schema } from "effect"
import * as E from "../../domain/PodEnums.js"
import { Envelope, IdLike, IntegerLike, MoneyFromWire, opt } from "./Common.js"

const optional = Schema.optional

const PricePlatform = Schema.Literal(
  "",
  ...E.MarketplacePlatforms.map((p) => E.pricePlatformName(p))
)

/** `shipping.address.method`: lower-case names or the enum names. */
const PriceShippingMethod = Schema.Literal(
  "standard",
  "stamp",
  "ground",
  "fastship",
  ...E.ShippingMethods
)

const PricePrintLocation = Schema.Literal(...E.PrintLocationNames, ...E.PrintLocationCodes)

export const PriceQuoteInput = Schema.Struct({
  order_platform: PricePlatform,
  billing: optional(
    Schema.Struct({
      ioss_number: optional(Schema.String),
      tax_number: optional(Schema.String)
    })
  ),
  shipping: Schema.Struct({
    address: Schema.Struct({
      method: PriceShippingMethod,
      state_code: Schema.String,
      country_code: Schema.String.pipe(Schema.length(2))
    }),
    label: optional(Schema.Struct({ url: Schema.String }))
  }),
  line_items: Schema.Array(
    Schema.Struct({
      // The published limit: catalog variant ids are 12 characters ("GM" and 10 digits).
      variant_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(30)),
      quantity: Schema.Int.pipe(Schema.between(1, 1000)),
      print_locations: Schema.Array(PricePrintLocation).pipe(Schema.minItems(1))
    })
  ).pipe(Schema.minItems(1), Schema.maxItems(1000)),
  gift_messages: optional(
    Schema.Array(
      Schema.Struct({
        gift_message_id: Schema.String,
        content: Schema.String.pipe(Schema.maxLength(300))
      })
    )
  )
}).annotations({ identifier: "PriceQuoteInput" })
export type PriceQuoteInput = typeof PriceQuoteInput.Type

export const PriceQuoteLine = Schema.Struct({
  id: opt(IdLike),
  item_quantity: opt(IntegerLike),
  unit_base_price: opt(MoneyFromWire),
  item_price: opt(MoneyFromWire),
  item_fee: opt(MoneyFromWire),
  item_discount: opt(MoneyFromWire),
  line_sub_total: opt(MoneyFromWire),
  line_tax: opt(MoneyFromWire),
  line_fee: opt(MoneyFromWire),
  line_discount: opt(MoneyFromWire),
  line_total: opt(MoneyFromWire)
}).annotations({ identifier: "PriceQuoteLine" })

export const PriceQuoteFee = Schema.Struct({
  order_id: opt(Schema.String),
  line_item_id: opt(Schema.String),
  fee_code: opt(Schema.String),
  amount: opt(MoneyFromWire)
}).annotations({ identifier: "PriceQuoteFee" })

/** Total = subtotal + shipping + tax + fees - discount (spec). */
export const PriceQuote = Schema.Struct({
  order_shipping_fee: opt(MoneyFromWire),
  order_fee: opt(MoneyFromWire),
  order_tax: opt(MoneyFromWire),
  order_sub_total: opt(MoneyFromWire),
  order_total: opt(MoneyFromWire),
  order_discount: opt(MoneyFromWire),
  order_gift_message_fee: opt(MoneyFromWire),
  order_handle_fee: opt(MoneyFromWire),
  line_items: opt(Schema.Array(PriceQuoteLine)),
  fees: opt(Schema.Array(PriceQuoteFee))
}).annotations({ identifier: "PriceQuote" })
export type PriceQuote = typeof PriceQuote.Type

export const PriceQuoteResponse = Envelope(PriceQuote)
