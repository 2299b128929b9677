/**
 * The GraphQL documents the connector sends. Sizes are chosen for the cost
 * rules (a connection is charged by its `first`, nested sizes multiply, one
 * query may not ask for more than 1,000 points): a pull page asks for
 * `pageSize` orders × 10 line items (about 62 points an order, so a page of
 * 10 asks for about 620); an order with more line items is completed by
 * follow-up queries of 100.
 */

export const LINE_ITEMS_PER_ORDER_PAGE = 10
export const LINE_ITEMS_PER_FOLLOW_UP = 100
/**
 * Fulfillment orders are asked `displayable: true` (without it Shopify also lists those closed after a
 * move or a merge, which can push an open or held one off the page) and paged when there are more.
 */
export const FULFILLMENT_ORDERS_PER_ORDER_PAGE = 5
export const FULFILLMENT_ORDERS_PER_FOLLOW_UP = 25

/** What a pull reads of a fulfillment order: whether it is held (and why) or scheduled (and until when). */
const ORDER_FULFILLMENT_ORDER_FIELDS = /* GraphQL */ `
fragment PodsyncOrderFulfillmentOrder on FulfillmentOrder { id status fulfillAt fulfillmentHolds { reason reasonNotes } }`

const LINE_ITEM_FIELDS = /* GraphQL */ `
fragment PodsyncLineItem on LineItem {
  id sku name title variantTitle quantity currentQuantity unfulfilledQuantity requiresShipping
  variant { id legacyResourceId sku }
  product { id legacyResourceId }
  customAttributes { key value }
}`

const ORDER_FIELDS = /* GraphQL */ `
fragment PodsyncOrder on Order {
  id legacyResourceId name email createdAt updatedAt cancelledAt cancelReason closedAt
  displayFinancialStatus displayFulfillmentStatus currencyCode note tags
  customAttributes { key value }
  currentTotalPriceSet { shopMoney { amount currencyCode } }
  shippingAddress {
    name firstName lastName company address1 address2 city province provinceCode zip country countryCodeV2 phone
  }
  shippingLines(first: 1) { nodes { title code } }
  fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_ORDER_PAGE}, displayable: true) {
    pageInfo { hasNextPage endCursor } nodes { ...PodsyncOrderFulfillmentOrder }
  }
  lineItems(first: ${LINE_ITEMS_PER_ORDER_PAGE}) { pageInfo { hasNextPage endCursor } nodes { ...PodsyncLineItem } }
}
${LINE_ITEM_FIELDS}
${ORDER_FULFILLMENT_ORDER_FIELDS}`

export const ORDERS_PAGE = /* GraphQL */ `
query PodsyncOrdersPage($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, sortKey: UPDATED_AT, query: $query) {
    pageInfo { hasNextPage endCursor }
    nodes { ...PodsyncOrder }
  }
}
${ORDER_FIELDS}`

export const ORDER = /* GraphQL */ `
query PodsyncOrder($id: ID!) {
  order(id: $id) { ...PodsyncOrder }
}
${ORDER_FIELDS}`

export const ORDER_FULFILLMENT_ORDERS = /* GraphQL */ `
query PodsyncOrderFulfillmentOrders($id: ID!, $after: String!) {
  order(id: $id) {
    updatedAt
    fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_FOLLOW_UP}, after: $after, displayable: true) {
      pageInfo { hasNextPage endCursor } nodes { ...PodsyncOrderFulfillmentOrder }
    }
  }
}
${ORDER_FULFILLMENT_ORDER_FIELDS}`

export const ORDER_LINE_ITEMS = /* GraphQL */ `
query PodsyncOrderLineItems($id: ID!, $after: String!) {
  order(id: $id) {
    updatedAt
    lineItems(first: ${LINE_ITEMS_PER_FOLLOW_UP}, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...PodsyncLineItem } }
  }
}
${LINE_ITEM_FIELDS}`

/** A fulfillment order as a push reads it: its status, holds, date, and the lines with what is left. */
const FULFILLMENT_ORDER_STATE = /* GraphQL */ `
fragment PodsyncFulfillmentOrderState on FulfillmentOrder {
  id status fulfillAt fulfillmentHolds { reason reasonNotes }
  lineItems(first: 25) { pageInfo { hasNextPage endCursor } nodes { id remainingQuantity lineItem { id } } }
}`

export const FULFILLMENT_ORDERS_PER_STATE_PAGE = 5

/** What a push needs to decide: fulfilments made (with tracking) and fulfilment orders with what is left. */
export const FULFILLMENT_STATE = /* GraphQL */ `
query PodsyncFulfillmentState($id: ID!) {
  order(id: $id) {
    id cancelledAt
    fulfillments(first: 50) { id status trackingInfo(first: 5) { company number url } }
    fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_STATE_PAGE}, displayable: true) {
      pageInfo { hasNextPage endCursor } nodes { ...PodsyncFulfillmentOrderState }
    }
  }
}
${FULFILLMENT_ORDER_STATE}`

/** The fulfillment orders of an order beyond the first page of a push's read. */
export const FULFILLMENT_ORDERS_STATE = /* GraphQL */ `
query PodsyncFulfillmentOrdersState($id: ID!, $after: String!) {
  order(id: $id) {
    fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_STATE_PAGE}, after: $after, displayable: true) {
      pageInfo { hasNextPage endCursor } nodes { ...PodsyncFulfillmentOrderState }
    }
  }
}
${FULFILLMENT_ORDER_STATE}`

/**
 * Batched fulfilment reads: `nodes(ids:)` is charged per id (33 points an order with these sizes:
 * 1 + fulfillments 2 + fulfillmentOrders 2 + 2 × (2 + lineItems 2 + 5 × 2)), so a fulfil claim of
 * 25 orders is one read of 825 points, under the 1,000-point cap. If Shopify charges the plain
 * lists `fulfillments` and `trackingInfo` by their `first` (the published table does not say), an
 * order is 91 points and 25 are refused (`MAX_COST_EXCEEDED`): the batch then splits in halves
 * until each read fits (ShopifyFulfillmentBatch). The sizes are smaller than the single read's, for the
 * common order (one fulfillment order of a few POD lines): an answer that may be cut short (as many
 * fulfilments as asked for, more fulfillment orders) is read again by the single read, more line
 * items are paged. Sized so, a push costs less than half the points (it was 77 an order, 10 a
 * read): with three replicas pulling a Standard bucket every 5 s, a claim of 25 needed four turns
 * in the bucket's queue and, under load, more than two minutes.
 */
export const FULFILLMENT_STATES_PER_QUERY = 25
export const BATCHED_FULFILLMENTS = 10
export const BATCHED_FULFILLMENT_ORDERS = 2
export const BATCHED_FULFILLMENT_ORDER_LINES = 5

export const FULFILLMENT_STATES = /* GraphQL */ `
query PodsyncFulfillmentStates($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on Order {
      id cancelledAt
      fulfillments(first: ${BATCHED_FULFILLMENTS}) { id status trackingInfo(first: 5) { company number url } }
      fulfillmentOrders(first: ${BATCHED_FULFILLMENT_ORDERS}, displayable: true) {
        pageInfo { hasNextPage }
        nodes {
          id status fulfillAt fulfillmentHolds { reason reasonNotes }
          lineItems(first: ${BATCHED_FULFILLMENT_ORDER_LINES}) {
            pageInfo { hasNextPage endCursor } nodes { id remainingQuantity lineItem { id } }
          }
        }
      }
    }
  }
}`

/** Requested cost of one order in `FULFILLMENT_STATES` (checked against the simulator's cost rules in a test). */
export const FULFILLMENT_STATES_COST_PER_ORDER = 33

export const FULFILLMENT_ORDER_LINE_ITEMS = /* GraphQL */ `
query PodsyncFulfillmentOrderLineItems($id: ID!, $after: String!) {
  fulfillmentOrder(id: $id) {
    lineItems(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { id remainingQuantity lineItem { id } } }
  }
}`

export const FULFILLMENT_LINE_ITEMS = /* GraphQL */ `
query PodsyncFulfillmentLineItems($id: ID!, $after: String) {
  fulfillment(id: $id) {
    fulfillmentLineItems(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { quantity lineItem { id } } }
  }
}`

export const FULFILLMENT_CREATE = /* GraphQL */ `
mutation PodsyncFulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status trackingInfo { company number url } }
    userErrors { field message }
  }
}`

/** A later package's number joins an earlier package's fulfilment (`trackingInfoInput` holds every number). */
export const FULFILLMENT_TRACKING_INFO_UPDATE = /* GraphQL */ `
mutation PodsyncFulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id status trackingInfo { company number url } }
    userErrors { field message }
  }
}`

/** `fulfillmentCreate` calls per batched mutation: 10 points each, 500 in all, half the single-query cap. */
export const FULFILLMENT_CREATES_PER_MUTATION = 50

/** One `fulfillmentCreate` per alias `f0`, `f1`…, each with its own `$fN: FulfillmentInput!`; Shopify runs them in order. */
export const fulfillmentCreateMany = (aliases: ReadonlyArray<string>): string => `
mutation PodsyncFulfillmentCreateMany(${aliases.map((alias) => `$${alias}: FulfillmentInput!`).join(", ")}) {
${
  aliases.map((alias) => `  ${alias}: fulfillmentCreate(fulfillment: $${alias}) { fulfillment { id status } userErrors { field message } }`)
    .join("\n")
}
}`

/** Orders per batched annotation: `metafieldsSet` takes at most 25 metafields. */
export const ANNOTATIONS_PER_MUTATION = 25

/**
 * Several orders' annotations in one request: one `metafieldsSet` with every order's metafield (first,
 * as in `ANNOTATE`), then one `tagsAdd` per order with a tag, aliased `t0`, `t1`… with `$id0`, `$tags0`….
 */
export const annotateMany = (withMetafields: boolean, tagCount: number): string => {
  const tags = Array.from({ length: tagCount }, (_, i) => i)
  const variables = [
    ...(withMetafields ? ["$metafields: [MetafieldsSetInput!]!"] : []),
    ...tags.flatMap((i) => [`$id${i}: ID!`, `$tags${i}: [String!]!`])
  ]
  const fields = [
    ...(withMetafields ? ["  metafieldsSet(metafields: $metafields) { metafields { id } userErrors { field message } }"] : []),
    ...tags.map((i) => `  ${tagAlias(i)}: tagsAdd(id: $id${i}, tags: $tags${i}) { node { id } userErrors { field message } }`)
  ]
  return `
mutation PodsyncAnnotateMany(${variables.join(", ")}) {
${fields.join("\n")}
}`
}

export const tagAlias = (index: number): string => `t${index}`
export const fulfillmentAlias = (index: number): string => `f${index}`

export const TAGS_ADD = /* GraphQL */ `
mutation PodsyncTagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } }
}`

export const METAFIELDS_SET = /* GraphQL */ `
mutation PodsyncMetafieldsSet($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) { metafields { id } userErrors { field message } }
}`

/** Both annotations in one request: Shopify runs a document's mutation fields one after another, in order. */
export const ANNOTATE = /* GraphQL */ `
mutation PodsyncAnnotate($metafields: [MetafieldsSetInput!]!, $id: ID!, $tags: [String!]!) {
  metafieldsSet(metafields: $metafields) { metafields { id } userErrors { field message } }
  tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } }
}`

export const orderGid = (storeOrderId: string): string => `gid://shopify/Order/${storeOrderId}`

/** Whether the text is a Shopify numeric order id (`legacyResourceId`). */
export const isLegacyOrderId = (storeOrderId: string): boolean => /^\d{1,20}$/.test(storeOrderId)

/** What the app was granted (`podsync check`, and an unknown order's explanation). */
export const ACCESS_SCOPES = /* GraphQL */ `
query PodsyncAccessScopes {
  currentAppInstallation { accessScopes { handle } }
}`

/** The newest order's buyer details, to see whether Shopify gives them (Level 2 protected customer data). */
export const RECENT_ORDER_BUYER = /* GraphQL */ `
query PodsyncRecentOrderBuyer {
  orders(first: 1, sortKey: CREATED_AT, reverse: true) {
    nodes { name email shippingAddress { name address1 zip phone } }
  }
}`
