import { buildSchema, type GraphQLSchema } from "graphql"

export const currencyCodes = ["USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "JPY", "MXN"] as const
export const countryCodes = [
  "US",
  "CA",
  "MX",
  "GB",
  "IE",
  "DE",
  "FR",
  "ES",
  "IT",
  "NL",
  "BE",
  "LU",
  "AT",
  "CH",
  "PT",
  "PL",
  "CZ",
  "SK",
  "HU",
  "SI",
  "HR",
  "RO",
  "BG",
  "GR",
  "CY",
  "MT",
  "SE",
  "DK",
  "FI",
  "NO",
  "IS",
  "EE",
  "LV",
  "LT",
  "AU",
  "NZ",
  "JP"
] as const
export const financialStatuses = [
  "AUTHORIZED",
  "EXPIRED",
  "PAID",
  "PARTIALLY_PAID",
  "PARTIALLY_REFUNDED",
  "PENDING",
  "REFUNDED",
  "VOIDED"
] as const

/**
 * The slice of Shopify's Admin GraphQL schema the simulator serves, with Shopify's own type, field,
 * argument and enum names (https://shopify.dev/docs/api/admin-graphql). Extra fields beyond what the
 * connector reads are here so that a differently written query still works.
 */
export const shopifySdl = /* GraphQL */ `
scalar DateTime
scalar Decimal
scalar URL
scalar JSON
scalar UnsignedInt64

interface Node { id: ID! }

type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }

enum OrderSortKeys { UPDATED_AT CREATED_AT ID ORDER_NUMBER PROCESSED_AT TOTAL_PRICE CUSTOMER_NAME FINANCIAL_STATUS FULFILLMENT_STATUS RELEVANCE }
enum OrderDisplayFinancialStatus { ${financialStatuses.join(" ")} }
enum OrderDisplayFulfillmentStatus { FULFILLED FULFILLMENT_NOT_REQUIRED IN_PROGRESS ON_HOLD OPEN PARTIALLY_FULFILLED PENDING_FULFILLMENT REQUEST_DECLINED RESTOCKED SCHEDULED UNFULFILLED }
enum OrderCancelReason { CUSTOMER DECLINED FRAUD INVENTORY OTHER STAFF }
enum CurrencyCode { ${currencyCodes.join(" ")} }
enum CountryCode { ${countryCodes.join(" ")} }
enum FulfillmentOrderStatus { OPEN IN_PROGRESS SCHEDULED ON_HOLD INCOMPLETE CLOSED CANCELLED }
enum FulfillmentOrderRequestStatus { UNSUBMITTED SUBMITTED ACCEPTED REJECTED CANCELLATION_REQUESTED CANCELLATION_ACCEPTED CANCELLATION_REJECTED CLOSED }
enum FulfillmentOrderAction { CREATE_FULFILLMENT HOLD RELEASE_HOLD MOVE REQUEST_FULFILLMENT CANCEL_FULFILLMENT_ORDER MARK_AS_OPEN }
enum FulfillmentHoldReason { AWAITING_PAYMENT AWAITING_RETURN_ITEMS HIGH_RISK_OF_FRAUD INCORRECT_ADDRESS INVENTORY_OUT_OF_STOCK ONLINE_STORE_POST_PURCHASE_CROSS_SELL OTHER UNKNOWN_DELIVERY_DATE }
enum FulfillmentStatus { SUCCESS CANCELLED ERROR FAILURE OPEN PENDING }
enum MetafieldsSetUserErrorCode { BLANK INCLUSION INVALID INVALID_TYPE INVALID_VALUE TAKEN TOO_LONG TOO_SHORT APP_NOT_AUTHORIZED STALE_OBJECT }
enum MetafieldOwnerType { ORDER }
enum CountPrecision { EXACT AT_LEAST }

type Count { count: Int! precision: CountPrecision! }
type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
type MoneyBag { shopMoney: MoneyV2! presentmentMoney: MoneyV2! }
type Attribute { key: String! value: String }
type UserError { field: [String!] message: String! }

type MailingAddress implements Node {
  id: ID! name: String firstName: String lastName: String company: String
  address1: String address2: String city: String province: String provinceCode: String
  zip: String country: String countryCodeV2: CountryCode phone: String
  formatted(withName: Boolean = false, withCompany: Boolean = true): [String!]!
  formattedArea: String
}

type AccessScope { handle: String! description: String! }
type AppInstallation implements Node { id: ID! accessScopes: [AccessScope!]! }

type Shop { id: ID! name: String! myshopifyDomain: String! email: String! currencyCode: CurrencyCode! }
type Customer implements Node { id: ID! legacyResourceId: UnsignedInt64! firstName: String lastName: String displayName: String! email: String }

type Product implements Node { id: ID! legacyResourceId: UnsignedInt64! title: String! handle: String! vendor: String! }
type ProductVariant implements Node { id: ID! legacyResourceId: UnsignedInt64! sku: String title: String! price: Money! product: Product! }
scalar Money

type ShippingLine { id: ID title: String! code: String source: String carrierIdentifier: String originalPriceSet: MoneyBag! }
type ShippingLineEdge { cursor: String! node: ShippingLine! }
type ShippingLineConnection { edges: [ShippingLineEdge!]! nodes: [ShippingLine!]! pageInfo: PageInfo! }

type LineItem implements Node {
  id: ID! name: String! title: String! variantTitle: String sku: String vendor: String
  quantity: Int! currentQuantity: Int! unfulfilledQuantity: Int! nonFulfillableQuantity: Int! refundableQuantity: Int!
  requiresShipping: Boolean! isGiftCard: Boolean!
  variant: ProductVariant product: Product
  customAttributes: [Attribute!]!
  originalUnitPriceSet: MoneyBag! discountedUnitPriceSet: MoneyBag! originalTotalSet: MoneyBag!
}
type LineItemEdge { cursor: String! node: LineItem! }
type LineItemConnection { edges: [LineItemEdge!]! nodes: [LineItem!]! pageInfo: PageInfo! }

type FulfillmentHold { id: ID! reason: FulfillmentHoldReason! reasonNotes: String handle: String }
type FulfillmentOrderSupportedAction { action: FulfillmentOrderAction! }
type Location implements Node { id: ID! legacyResourceId: UnsignedInt64! name: String! }
type FulfillmentOrderAssignedLocation { name: String! location: Location }

type FulfillmentOrderLineItem implements Node {
  id: ID! totalQuantity: Int! remainingQuantity: Int! lineItem: LineItem! sku: String productTitle: String! variantTitle: String
}
type FulfillmentOrderLineItemEdge { cursor: String! node: FulfillmentOrderLineItem! }
type FulfillmentOrderLineItemConnection { edges: [FulfillmentOrderLineItemEdge!]! nodes: [FulfillmentOrderLineItem!]! pageInfo: PageInfo! }

type FulfillmentOrder implements Node {
  id: ID! status: FulfillmentOrderStatus! requestStatus: FulfillmentOrderRequestStatus! fulfillAt: DateTime
  createdAt: DateTime! updatedAt: DateTime! orderId: ID! orderName: String! order: Order!
  fulfillmentHolds: [FulfillmentHold!]!
  supportedActions: [FulfillmentOrderSupportedAction!]!
  assignedLocation: FulfillmentOrderAssignedLocation!
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentOrderLineItemConnection!
  fulfillments(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentConnection!
}
type FulfillmentOrderEdge { cursor: String! node: FulfillmentOrder! }
type FulfillmentOrderConnection { edges: [FulfillmentOrderEdge!]! nodes: [FulfillmentOrder!]! pageInfo: PageInfo! }

type FulfillmentTrackingInfo { company: String number: String url: URL }
type FulfillmentLineItem implements Node { id: ID! quantity: Int lineItem: LineItem! }
type FulfillmentLineItemEdge { cursor: String! node: FulfillmentLineItem! }
type FulfillmentLineItemConnection { edges: [FulfillmentLineItemEdge!]! nodes: [FulfillmentLineItem!]! pageInfo: PageInfo! }

type Fulfillment implements Node {
  id: ID! legacyResourceId: UnsignedInt64! name: String! status: FulfillmentStatus!
  createdAt: DateTime! updatedAt: DateTime! totalQuantity: Int! order: Order!
  trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
  fulfillmentLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentLineItemConnection!
  fulfillmentOrders(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentOrderConnection!
}
type FulfillmentEdge { cursor: String! node: Fulfillment! }
type FulfillmentConnection { edges: [FulfillmentEdge!]! nodes: [Fulfillment!]! pageInfo: PageInfo! }

type Metafield implements Node {
  id: ID! legacyResourceId: UnsignedInt64! namespace: String! key: String! type: String! value: String! jsonValue: JSON!
  compareDigest: String! ownerType: MetafieldOwnerType! createdAt: DateTime! updatedAt: DateTime!
}
type MetafieldEdge { cursor: String! node: Metafield! }
type MetafieldConnection { edges: [MetafieldEdge!]! nodes: [Metafield!]! pageInfo: PageInfo! }

type Order implements Node {
  id: ID! legacyResourceId: UnsignedInt64! name: String! email: String phone: String
  createdAt: DateTime! updatedAt: DateTime! processedAt: DateTime! cancelledAt: DateTime cancelReason: OrderCancelReason
  closed: Boolean! closedAt: DateTime confirmed: Boolean! test: Boolean! fullyPaid: Boolean! unpaid: Boolean!
  displayFinancialStatus: OrderDisplayFinancialStatus displayFulfillmentStatus: OrderDisplayFulfillmentStatus!
  currencyCode: CurrencyCode! presentmentCurrencyCode: CurrencyCode!
  note: String tags: [String!]! customAttributes: [Attribute!]!
  customer: Customer shippingAddress: MailingAddress billingAddress: MailingAddress
  shippingLine: ShippingLine
  shippingLines(first: Int, after: String, last: Int, before: String, reverse: Boolean = false, includeRemovals: Boolean = false): ShippingLineConnection!
  subtotalPriceSet: MoneyBag totalPriceSet: MoneyBag! currentTotalPriceSet: MoneyBag! currentSubtotalPriceSet: MoneyBag!
  totalShippingPriceSet: MoneyBag!
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): LineItemConnection!
  fulfillmentOrders(first: Int, after: String, last: Int, before: String, reverse: Boolean = false, displayable: Boolean = false, query: String): FulfillmentOrderConnection!
  fulfillments(first: Int, query: String): [Fulfillment!]!
  metafield(namespace: String, key: String!): Metafield
  metafields(first: Int, after: String, last: Int, before: String, reverse: Boolean = false, namespace: String, keys: [String!]): MetafieldConnection!
}
type OrderEdge { cursor: String! node: Order! }
type OrderConnection { edges: [OrderEdge!]! nodes: [Order!]! pageInfo: PageInfo! }

type Query {
  orders(first: Int, after: String, last: Int, before: String, reverse: Boolean = false, sortKey: OrderSortKeys = PROCESSED_AT, query: String, savedSearchId: ID): OrderConnection!
  order(id: ID!): Order
  ordersCount(query: String, limit: Int = 10000, savedSearchId: ID): Count
  fulfillmentOrder(id: ID!): FulfillmentOrder
  fulfillment(id: ID!): Fulfillment
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  shop: Shop!
  currentAppInstallation: AppInstallation!
}

input FulfillmentOrderLineItemInput { id: ID! quantity: Int! }
input FulfillmentOrderLineItemsInput { fulfillmentOrderId: ID! fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!] }
input FulfillmentTrackingInput { company: String number: String numbers: [String!] url: URL urls: [URL!] }
input FulfillmentOriginAddressInput { address1: String address2: String city: String countryCode: String! provinceCode: String zip: String }
input FulfillmentInput {
  lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]!
  notifyCustomer: Boolean = false
  trackingInfo: FulfillmentTrackingInput
  originAddress: FulfillmentOriginAddressInput
}
input FulfillmentOrderHoldInput { reason: FulfillmentHoldReason! reasonNotes: String notifyMerchant: Boolean = false handle: String }
input MetafieldsSetInput { ownerId: ID! namespace: String key: String! type: String value: String! compareDigest: String }

type FulfillmentCreatePayload { fulfillment: Fulfillment userErrors: [UserError!]! }
type FulfillmentTrackingInfoUpdatePayload { fulfillment: Fulfillment userErrors: [UserError!]! }
type FulfillmentCancelPayload { fulfillment: Fulfillment userErrors: [UserError!]! }
type TagsAddPayload { node: Node userErrors: [UserError!]! }
type TagsRemovePayload { node: Node userErrors: [UserError!]! }
type MetafieldsSetUserError { field: [String!] message: String! code: MetafieldsSetUserErrorCode elementIndex: Int }
type MetafieldsSetPayload { metafields: [Metafield!] userErrors: [MetafieldsSetUserError!]! }
type FulfillmentOrderHoldUserError { field: [String!] message: String! }
type FulfillmentOrderHoldPayload { fulfillmentHold: FulfillmentHold fulfillmentOrder: FulfillmentOrder remainingFulfillmentOrder: FulfillmentOrder userErrors: [FulfillmentOrderHoldUserError!]! }
type FulfillmentOrderReleaseHoldUserError { field: [String!] message: String! }
type FulfillmentOrderReleaseHoldPayload { fulfillmentOrder: FulfillmentOrder userErrors: [FulfillmentOrderReleaseHoldUserError!]! }
type FulfillmentOrderOpenPayload { fulfillmentOrder: FulfillmentOrder userErrors: [UserError!]! }

type Mutation {
  fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
  fulfillmentTrackingInfoUpdate(fulfillmentId: ID!, trackingInfoInput: FulfillmentTrackingInput!, notifyCustomer: Boolean): FulfillmentTrackingInfoUpdatePayload
  fulfillmentCancel(id: ID!): FulfillmentCancelPayload
  tagsAdd(id: ID!, tags: [String!]!): TagsAddPayload
  tagsRemove(id: ID!, tags: [String!]!): TagsRemovePayload
  metafieldsSet(metafields: [MetafieldsSetInput!]!): MetafieldsSetPayload
  fulfillmentOrderHold(id: ID!, fulfillmentHold: FulfillmentOrderHoldInput!): FulfillmentOrderHoldPayload
  fulfillmentOrderReleaseHold(id: ID!, holdIds: [ID!], externalId: String): FulfillmentOrderReleaseHoldPayload
  fulfillmentOrderOpen(id: ID!): FulfillmentOrderOpenPayload
}
`

export const makeShopifySchema = (): GraphQLSchema => buildSchema(shopifySdl)
