/**
 * A realistic `order` as Shopify's GraphQL Admin API returns it for the
 * connector's selection: an Italian buyer (province Milano, code MI), three
 * lines (a tee with one of three units refunded and design attributes, a
 * personalised mug, a gift-wrap line that does not ship), order-level note
 * attributes, partially refunded.
 */
export const milanoOrderPayload = {
  id: "gid://shopify/Order/5610000042",
  legacyResourceId: "5610000042",
  name: "#1042",
  email: "chiara.rossi@example.it",
  createdAt: "2026-03-01T09:30:00Z",
  updatedAt: "2026-03-02T11:00:05Z",
  cancelledAt: null,
  cancelReason: null,
  closedAt: null,
  displayFinancialStatus: "PARTIALLY_REFUNDED",
  displayFulfillmentStatus: "UNFULFILLED",
  currencyCode: "EUR",
  note: "Consegna dopo le 18, grazie",
  tags: ["vip", "repeat-buyer"],
  customAttributes: [{ key: "gift_message", value: "Buon compleanno, nonna!" }],
  currentTotalPriceSet: { shopMoney: { amount: "64.50", currencyCode: "EUR" } },
  shippingAddress: {
    name: "Chiara Rossi",
    firstName: "Chiara",
    lastName: "Rossi",
    company: "Studio Rossi S.r.l.",
    address1: "Via Dante 12",
    address2: null,
    city: "Milano",
    province: "Milano",
    provinceCode: "MI",
    zip: "20121",
    country: "Italy",
    countryCodeV2: "IT",
    phone: "+39 02 5550 1234"
  },
  shippingLines: { nodes: [{ title: "Spedizione standard", code: "STANDARD" }] },
  fulfillmentOrders: { nodes: [{ id: "gid://shopify/FulfillmentOrder/6720000042", status: "OPEN", fulfillmentHolds: [] }] },
  lineItems: {
    pageInfo: { hasNextPage: false, endCursor: "eyJsYXN0X2lkIjoxMzk4MDAwMDA0NCwibGFzdF92YWx1ZSI6MTM5ODAwMDAwNDR9" },
    nodes: [
      {
        id: "gid://shopify/LineItem/13980000042",
        sku: "TEE-BLK-M",
        name: "Classic Tee - Black / M",
        title: "Classic Tee",
        variantTitle: "Black / M",
        quantity: 3,
        currentQuantity: 2,
        unfulfilledQuantity: 2,
        requiresShipping: true,
        variant: { id: "gid://shopify/ProductVariant/44880001012", legacyResourceId: "44880001012", sku: "TEE-BLK-M" },
        product: { id: "gid://shopify/Product/7981230001", legacyResourceId: "7981230001" },
        customAttributes: [
          { key: "design_url", value: "https://cdn.example.com/designs/sunset-wave.png" },
          { key: "_preview", value: "https://cdn.example.com/previews/sunset-wave-tee.jpg" }
        ]
      },
      {
        id: "gid://shopify/LineItem/13980000043",
        sku: null,
        name: "Ceramic Mug - White / 11OZ",
        title: "Ceramic Mug",
        variantTitle: "White / 11OZ",
        quantity: 1,
        currentQuantity: 1,
        unfulfilledQuantity: 1,
        requiresShipping: true,
        variant: { id: "gid://shopify/ProductVariant/44880004021", legacyResourceId: "44880004021", sku: "MUG-WHT-11OZ" },
        product: { id: "gid://shopify/Product/7981230004", legacyResourceId: "7981230004" },
        customAttributes: [
          { key: "Personalizzazione", value: "Per la migliore nonna ♥" },
          { key: "font", value: null }
        ]
      },
      {
        id: "gid://shopify/LineItem/13980000044",
        sku: "",
        name: "Gift wrap",
        title: "Gift wrap",
        variantTitle: null,
        quantity: 1,
        currentQuantity: 1,
        unfulfilledQuantity: 1,
        requiresShipping: false,
        variant: null,
        product: null,
        customAttributes: []
      }
    ]
  }
} as const
