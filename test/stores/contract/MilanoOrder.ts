/**
 * The realistic Milan order that the Shopify and WooCommerce fixtures (`milanoOrderPayload`) both
 * describe, in what its normalized form is the same on both platforms: when it was made and changed,
 * its money and statuses, and the buyer's address.
 */
export const milanoNormalized = {
  createdAt: "2026-03-01T09:30:00Z",
  updatedAt: "2026-03-02T11:00:05Z",
  currency: "EUR",
  financialStatus: "partially_refunded",
  fulfillmentStatus: "unfulfilled",
  cancelled: false,
  holds: [],
  email: "chiara.rossi@example.it"
}

export const chiaraRossiShipTo = {
  name: "Chiara Rossi",
  firstName: "Chiara",
  lastName: "Rossi",
  company: "Studio Rossi S.r.l.",
  line1: "Via Dante 12",
  city: "Milano",
  regionCode: "MI",
  postalCode: "20121",
  countryCode: "IT",
  phone: "+39 02 5550 1234"
}
