/**
 * Schemas of the `data` the connector's GraphQL documents return, with
 * Shopify's field names. Nullable fields are `NullOr`; ids that Shopify types
 * `UnsignedInt64` arrive as strings (or numbers from some servers) and are
 * read as strings.
 */
import { Schema } from "effect"

/** `UnsignedInt64` / `Decimal`: a string on Shopify, accepted as a number too. */
const NumericText = Schema.transform(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (value) => String(value),
  encode: (value) => value
})

const PageInfo = Schema.Struct({ hasNextPage: Schema.Boolean, endCursor: Schema.NullOr(Schema.String) })

const MoneyV2 = Schema.Struct({ amount: NumericText, currencyCode: Schema.String })
const MoneyBag = Schema.Struct({ shopMoney: MoneyV2 })

export const ShopifyAttribute = Schema.Struct({ key: Schema.String, value: Schema.NullOr(Schema.String) })
export type ShopifyAttribute = typeof ShopifyAttribute.Type

export const ShopifyLineItem = Schema.Struct({
  id: Schema.String,
  sku: Schema.NullOr(Schema.String),
  name: Schema.String,
  title: Schema.String,
  variantTitle: Schema.NullOr(Schema.String),
  quantity: Schema.Int,
  currentQuantity: Schema.Int,
  unfulfilledQuantity: Schema.Int,
  requiresShipping: Schema.Boolean,
  variant: Schema.NullOr(
    Schema.Struct({ id: Schema.String, legacyResourceId: NumericText, sku: Schema.NullOr(Schema.String) })
  ),
  product: Schema.NullOr(Schema.Struct({ id: Schema.String, legacyResourceId: NumericText })),
  customAttributes: Schema.Array(ShopifyAttribute)
})
export type ShopifyLineItem = typeof ShopifyLineItem.Type

const LineItemPage = Schema.Struct({ pageInfo: PageInfo, nodes: Schema.Array(ShopifyLineItem) })

export const ShopifyMailingAddress = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  company: Schema.NullOr(Schema.String),
  address1: Schema.NullOr(Schema.String),
  address2: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  province: Schema.NullOr(Schema.String),
  provinceCode: Schema.NullOr(Schema.String),
  zip: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  countryCodeV2: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String)
})
export type ShopifyMailingAddress = typeof ShopifyMailingAddress.Type

const FulfillmentHold = Schema.Struct({ reason: Schema.String, reasonNotes: Schema.NullOr(Schema.String) })

/** A fulfillment order as a pull reads it (`fulfillAt` is optional so that versions stored before it was read decode). */
const OrderFulfillmentOrder = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  fulfillAt: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  fulfillmentHolds: Schema.Array(FulfillmentHold)
})
export type OrderFulfillmentOrder = typeof OrderFulfillmentOrder.Type
const OrderFulfillmentOrderPage = Schema.Struct({
  pageInfo: Schema.optionalWith(PageInfo, { default: () => ({ hasNextPage: false, endCursor: null }) }),
  nodes: Schema.Array(OrderFulfillmentOrder)
})

export const ShopifyOrder = Schema.Struct({
  id: Schema.String,
  legacyResourceId: NumericText,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  cancelledAt: Schema.NullOr(Schema.String),
  cancelReason: Schema.NullOr(Schema.String),
  closedAt: Schema.NullOr(Schema.String),
  displayFinancialStatus: Schema.NullOr(Schema.String),
  displayFulfillmentStatus: Schema.String,
  currencyCode: Schema.String,
  note: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
  customAttributes: Schema.Array(ShopifyAttribute),
  currentTotalPriceSet: Schema.NullOr(MoneyBag),
  shippingAddress: Schema.NullOr(ShopifyMailingAddress),
  shippingLines: Schema.Struct({
    nodes: Schema.Array(Schema.Struct({ title: Schema.String, code: Schema.NullOr(Schema.String) }))
  }),
  fulfillmentOrders: OrderFulfillmentOrderPage,
  lineItems: LineItemPage
})
export type ShopifyOrder = typeof ShopifyOrder.Type

/** `orders` page; nodes stay unknown so that one unreadable order does not hide the others. */
export const OrdersPageData = Schema.Struct({
  orders: Schema.Struct({ pageInfo: PageInfo, nodes: Schema.Array(Schema.Unknown) })
})

export const OrderData = Schema.Struct({ order: Schema.NullOr(Schema.Unknown) })

export const OrderFulfillmentOrdersData = Schema.Struct({
  order: Schema.NullOr(Schema.Struct({ updatedAt: Schema.String, fulfillmentOrders: OrderFulfillmentOrderPage }))
})

export const OrderLineItemsData = Schema.Struct({
  order: Schema.NullOr(Schema.Struct({ updatedAt: Schema.String, lineItems: LineItemPage }))
})

const FulfillmentOrderLine = Schema.Struct({
  id: Schema.String,
  remainingQuantity: Schema.Int,
  lineItem: Schema.Struct({ id: Schema.String })
})
export type FulfillmentOrderLine = typeof FulfillmentOrderLine.Type
const FulfillmentOrderLinePage = Schema.Struct({ pageInfo: PageInfo, nodes: Schema.Array(FulfillmentOrderLine) })

const Tracking = Schema.Struct({
  company: Schema.NullOr(Schema.String),
  number: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String)
})

const FulfillmentStateFields = {
  id: Schema.String,
  cancelledAt: Schema.NullOr(Schema.String),
  fulfillments: Schema.Array(Schema.Struct({ id: Schema.String, status: Schema.String, trackingInfo: Schema.Array(Tracking) }))
}
const FulfillmentOrderState = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  fulfillAt: Schema.NullOr(Schema.String),
  fulfillmentHolds: Schema.Array(FulfillmentHold),
  lineItems: FulfillmentOrderLinePage
})
export type FulfillmentOrderState = typeof FulfillmentOrderState.Type
const FulfillmentOrderStatePage = Schema.Struct({ pageInfo: PageInfo, nodes: Schema.Array(FulfillmentOrderState) })

export const FulfillmentStateData = Schema.Struct({
  order: Schema.NullOr(Schema.Struct({ ...FulfillmentStateFields, fulfillmentOrders: FulfillmentOrderStatePage }))
})

export const FulfillmentOrdersStateData = Schema.Struct({
  order: Schema.NullOr(Schema.Struct({ fulfillmentOrders: FulfillmentOrderStatePage }))
})
export type FulfillmentState = NonNullable<typeof FulfillmentStateData.Type["order"]>

/** One order of the batched read; `fulfillmentOrders` says whether there are more than it holds. */
export const BatchedFulfillmentState = Schema.Struct({
  ...FulfillmentStateFields,
  fulfillmentOrders: Schema.Struct({
    pageInfo: Schema.Struct({ hasNextPage: Schema.Boolean }),
    nodes: Schema.Array(FulfillmentOrderState)
  })
})
export type BatchedFulfillmentState = typeof BatchedFulfillmentState.Type

/** `nodes(ids:)`, one per id in order (null when unknown); each decoded alone so that one odd order does not hide the others. */
export const FulfillmentStatesData = Schema.Struct({ nodes: Schema.Array(Schema.Unknown) })

export const FulfillmentOrderLineItemsData = Schema.Struct({
  fulfillmentOrder: Schema.NullOr(Schema.Struct({ lineItems: FulfillmentOrderLinePage }))
})

export const FulfillmentLineItemsData = Schema.Struct({
  fulfillment: Schema.NullOr(
    Schema.Struct({
      fulfillmentLineItems: Schema.Struct({
        pageInfo: PageInfo,
        nodes: Schema.Array(Schema.Struct({ quantity: Schema.NullOr(Schema.Int), lineItem: Schema.Struct({ id: Schema.String }) }))
      })
    })
  )
})

const UserErrors = Schema.Array(Schema.Struct({ field: Schema.NullOr(Schema.Array(Schema.String)), message: Schema.String }))

export const FulfillmentCreatePayload = Schema.NullOr(
  Schema.Struct({
    fulfillment: Schema.NullOr(Schema.Struct({ id: Schema.String, status: Schema.String })),
    userErrors: UserErrors
  })
)
export type FulfillmentCreatePayload = typeof FulfillmentCreatePayload.Type

export const FulfillmentCreateData = Schema.Struct({ fulfillmentCreate: FulfillmentCreatePayload })

export const FulfillmentTrackingInfoUpdateData = Schema.Struct({ fulfillmentTrackingInfoUpdate: FulfillmentCreatePayload })

/** What the connector reads of `tagsAdd` and `metafieldsSet` alike. */
export const UserErrorsPayload = Schema.NullOr(Schema.Struct({ userErrors: UserErrors }))
export type UserErrorsPayload = typeof UserErrorsPayload.Type

export const TagsAddData = Schema.Struct({ tagsAdd: UserErrorsPayload })

export const MetafieldsSetData = Schema.Struct({ metafieldsSet: UserErrorsPayload })

export const AnnotateData = Schema.Struct({ ...MetafieldsSetData.fields, ...TagsAddData.fields })

/** The `data` of a document of aliased fields (or root fields): the same payload under each key. */
export const aliasedData = <A, I>(keys: ReadonlyArray<string>, payload: Schema.Schema<A, I>) =>
  Schema.Struct(Object.fromEntries(keys.map((key) => [key, payload])) as Record<string, Schema.Schema<A, I>>)

export const AccessScopesData = Schema.Struct({
  currentAppInstallation: Schema.Struct({ accessScopes: Schema.Array(Schema.Struct({ handle: Schema.String })) })
})

export const RecentOrderBuyerData = Schema.Struct({
  orders: Schema.Struct({ nodes: Schema.Array(Schema.Struct({ name: Schema.String })) })
})
