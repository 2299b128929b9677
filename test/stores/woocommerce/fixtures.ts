/**
 * A realistic WooCommerce REST v3 order as a store in Milan (UTC+1) returns it: a variable tee with
 * its variation attributes and POD personalisation in line item meta, a simple mug without a SKU,
 * a partial refund (its line items merged in from `/orders/<id>/refunds`), hidden meta, a shipping
 * address without line 2 or phone.
 */
/** The buyer's address, billing and shipping alike but for the phone. */
const studioRossi = {
  first_name: "Chiara",
  last_name: "Rossi",
  company: "Studio Rossi S.r.l.",
  address_1: "Via Dante 12",
  address_2: "",
  city: "Milano",
  state: "MI",
  postcode: "20121",
  country: "IT"
}

export const milanoOrderPayload = {
  id: 4187,
  parent_id: 0,
  status: "processing",
  currency: "EUR",
  version: "9.8.5",
  prices_include_tax: true,
  date_created: "2026-03-01T10:30:00",
  date_created_gmt: "2026-03-01T09:30:00",
  date_modified: "2026-03-02T12:00:05",
  date_modified_gmt: "2026-03-02T11:00:05",
  discount_total: "0.00",
  discount_tax: "0.00",
  shipping_total: "4.90",
  shipping_tax: "0.00",
  cart_tax: "0.00",
  total: "72.90",
  total_tax: "0.00",
  customer_id: 58,
  order_key: "wc_order_Zr8kPq2LmX1aB",
  billing: { ...studioRossi, email: "chiara.rossi@example.it", phone: "+39 02 5550 1234" },
  shipping: { ...studioRossi, phone: "" },
  payment_method: "stripe",
  payment_method_title: "Carta di credito (Stripe)",
  transaction_id: "pi_3Q9xYzAbCdEf",
  customer_ip_address: "203.0.113.24",
  customer_user_agent: "Mozilla/5.0",
  created_via: "checkout",
  customer_note: "Citofono Rossi, 2° piano",
  date_completed: null,
  date_paid: "2026-03-01T10:30:04",
  cart_hash: "5b1c6a0e2f",
  number: "4187",
  meta_data: [
    { id: 21870, key: "is_vat_exempt", value: "no" },
    { id: 21871, key: "_wc_order_attribution_source_type", value: "typein" },
    { id: 21872, key: "gift_message", value: "Buon compleanno!" }
  ],
  line_items: [
    {
      id: 312,
      name: "Classic Tee - Black, M",
      product_id: 311,
      variation_id: 318,
      quantity: 3,
      tax_class: "",
      subtotal: "72.00",
      subtotal_tax: "0.00",
      total: "72.00",
      total_tax: "0.00",
      taxes: [],
      meta_data: [
        { id: 2901, key: "pa_color", value: "black", display_key: "Color", display_value: "Black" },
        { id: 2902, key: "pa_size", value: "m", display_key: "Size", display_value: "M" },
        {
          id: 2903,
          key: "design_front",
          value: "https://cdn.example.com/designs/sunset-wave.png",
          display_key: "design_front",
          display_value: "https://cdn.example.com/designs/sunset-wave.png"
        },
        {
          id: 2904,
          key: "Personalizzazione",
          value: "Per la migliore nonna ♥",
          display_key: "Personalizzazione",
          display_value: "Per la migliore nonna ♥"
        },
        { id: 2905, key: "_reduced_stock", value: "3", display_key: "_reduced_stock", display_value: "3" }
      ],
      sku: "TEE-BLK-M",
      price: 24,
      image: { id: 77, src: "https://acme.example.com/wp-content/uploads/tee.png" },
      parent_name: "Classic Tee"
    },
    {
      id: 313,
      name: "Ceramic Mug",
      product_id: 362,
      variation_id: 0,
      quantity: 1,
      tax_class: "",
      subtotal: "16.00",
      subtotal_tax: "0.00",
      total: "16.00",
      total_tax: "0.00",
      taxes: [],
      meta_data: [{
        id: 2906,
        key: "print_options",
        value: { finish: "gloss", wrap: true },
        display_key: "print_options",
        display_value: ""
      }],
      sku: "",
      price: 16,
      image: { id: 0, src: "" },
      parent_name: null
    }
  ],
  tax_lines: [],
  shipping_lines: [{
    id: 314,
    method_title: "Spedizione standard",
    method_id: "flat_rate",
    instance_id: "2",
    total: "4.90",
    total_tax: "0.00",
    taxes: [],
    meta_data: []
  }],
  fee_lines: [],
  coupon_lines: [],
  refunds: [
    {
      id: 4190,
      reason: "Taglia sbagliata",
      total: "-24.00",
      line_items: [
        {
          id: 320,
          name: "Classic Tee - Black, M",
          product_id: 311,
          variation_id: 318,
          quantity: -1,
          total: "-24.00",
          meta_data: [{ id: 2950, key: "_refunded_item_id", value: "312", display_key: "_refunded_item_id", display_value: "312" }]
        }
      ]
    }
  ],
  payment_url: "https://acme.example.com/checkout/order-pay/4187/?pay_for_order=true&key=wc_order_Zr8kPq2LmX1aB",
  is_editable: false,
  needs_payment: false,
  needs_processing: true,
  currency_symbol: "€",
  _links: {
    self: [{ href: "https://acme.example.com/wp-json/wc/v3/orders/4187" }],
    collection: [{ href: "https://acme.example.com/wp-json/wc/v3/orders" }]
  }
}

/** The variable tee (Black, M), two at 24.00, as the simulator's admin API takes a line item. */
export const simTeeLine = {
  name: "Classic Tee - Black, M",
  parentName: "Classic Tee",
  productId: 311,
  variationId: 318,
  sku: "TEE-BLA-M",
  quantity: 2,
  price: "24.00"
}
