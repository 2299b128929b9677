// Enumerations of the POD API as the simulator speaks them (names on the wire).

export const MARKETPLACE_PLATFORMS = [
  "MARKETPLACE_PLATFORM_EBAY",
  "MARKETPLACE_PLATFORM_AMAZON",
  "MARKETPLACE_PLATFORM_SHOPIFY",
  "MARKETPLACE_PLATFORM_WOOCOMMERCE",
  "MARKETPLACE_PLATFORM_ETSY",
  "MARKETPLACE_PLATFORM_SHOPBASE",
  "MARKETPLACE_PLATFORM_GEARMENT",
  "MARKETPLACE_PLATFORM_ORDERDESK",
  "MARKETPLACE_PLATFORM_TIKTOKSHOP",
  "MARKETPLACE_PLATFORM_POSHMARK",
  "MARKETPLACE_PLATFORM_PRESTASHOP",
  "MARKETPLACE_PLATFORM_INKGO",
  "MARKETPLACE_PLATFORM_WISH",
  "MARKETPLACE_PLATFORM_BIGCOMMERCE",
  "MARKETPLACE_PLATFORM_CUSTOMILY"
] as const

/** Price quotes take the same platforms in lower case, plus the empty string. */
export const QUOTE_PLATFORMS: ReadonlyArray<string> = [
  "",
  ...MARKETPLACE_PLATFORMS.map((p) => p.slice("MARKETPLACE_PLATFORM_".length).toLowerCase())
]

export const ORDER_STATUS_PREFIX = "VENDOR_ORDER_STATUS_"
export const ORDER_STATUSES = [
  "AWAITING_PAYMENT",
  "PAYMENT_FAILED",
  "AWAITING_FULFILLMENT",
  "IN_PRODUCTION",
  "PACKED",
  "SHIPPED",
  "CANCELLED",
  "ON_HOLD"
] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/** The forward path an order walks when advanced one step at a time. */
export const ORDER_PATH: ReadonlyArray<OrderStatus> = [
  "AWAITING_PAYMENT",
  "AWAITING_FULFILLMENT",
  "IN_PRODUCTION",
  "PACKED",
  "SHIPPED"
]

export const PAYMENT_STATUS_PREFIX = "VENDOR_ORDER_PAYMENT_STATUS_"
export const PAYMENT_STATUSES = ["PENDING", "SUCCESS", "FAILED", "EXPIRED", "SUCCESS_PARTIALLY"] as const
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

export const DRAFT_STATUS_PREFIX = "VENDOR_ORDER_DRAFT_STATUS_"
export const DRAFT_STATUSES = ["DRAFT", "AWAITING_CHECKOUT", "CHECKED_OUT", "DELETED", "ARCHIVED"] as const
export type DraftStatus = (typeof DRAFT_STATUSES)[number]

export const CREATED_METHODS = [
  "VENDOR_CREATED_METHOD_SYNC",
  "VENDOR_CREATED_METHOD_MANUAL",
  "VENDOR_CREATED_METHOD_API",
  "VENDOR_CREATED_METHOD_IMPORT",
  "VENDOR_CREATED_METHOD_LABEL"
] as const

export const SHIPPING_METHODS = ["METHOD_STANDARD", "METHOD_GROUND", "METHOD_FAST_SHIP", "METHOD_STAMP", "METHOD_ECONOMY"] as const
export type ShippingMethod = (typeof SHIPPING_METHODS)[number]

export const PRINT_LOCATION_PREFIX = "PRINT_LOCATION_CODE_"
export const PRINT_LOCATIONS = ["WHOLE", "FRONT", "BACK", "LEFT_SLEEVE", "RIGHT_SLEEVE", "POCKET", "INSIDE_LABEL", "OUTSIDE_LABEL"] as const
export type PrintLocation = (typeof PRINT_LOCATIONS)[number]

export const CATALOG_STOCK_PREFIX = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"
export const CATALOG_STOCK_LABELS = ["IN_STOCK", "OUT_OF_STOCK", "OUT_OF_STOCK_5D", "DISCONTINUED"] as const
export type CatalogStockLabel = (typeof CATALOG_STOCK_LABELS)[number]

/** Stock label as orders and drafts show it. */
export const orderStockLabel = (label: CatalogStockLabel): string => `VENDOR_STOCK_LABEL_${label === "OUT_OF_STOCK_5D" ? "AT_RISK" : label}`

export const WEBHOOK_STATUSES = ["STATUS_ACTIVE", "STATUS_INACTIVE"] as const
export const WEBHOOK_VERSIONS = ["VERSION_V1", "VERSION_V3"] as const

/** Topics events are emitted under. */
export const WEBHOOK_TOPICS = [
  "TOPIC_ORDER_COMPLETED",
  "TOPIC_ORDER_CANCELLED",
  "TOPIC_TRACKING_ORDER_UPDATED",
  "TOPIC_ORDER_ON_HOLD",
  "TOPIC_SHIPPING_ADDRESS_VERIFIED",
  "TOPIC_SHIPPING_ADDRESS_UNVERIFIED",
  "TOPIC_PRODUCT_OUT_OF_STOCK"
] as const
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number]

/** The create-operation's alternative topic names, and what they mean. */
export const TOPIC_ALIASES: Readonly<Record<string, WebhookTopic>> = {
  VENDOR_WEBHOOK_TOPIC_ORDER_COMPLETED: "TOPIC_ORDER_COMPLETED",
  VENDOR_WEBHOOK_TOPIC_ORDER_CANCELED: "TOPIC_ORDER_CANCELLED",
  VENDOR_WEBHOOK_TOPIC_TRACKING_UPDATED: "TOPIC_TRACKING_ORDER_UPDATED",
  VENDOR_WEBHOOK_TOPIC_ADDRESS_UNVERIFIED: "TOPIC_SHIPPING_ADDRESS_UNVERIFIED"
}

export const canonicalTopic = (topic: string): WebhookTopic | undefined =>
  (WEBHOOK_TOPICS as ReadonlyArray<string>).includes(topic) ? (topic as WebhookTopic) : TOPIC_ALIASES[topic]

export const ADDRESS_TYPES = ["TYPE_SHIP_FROM", "TYPE_SHIP_TO", "TYPE_BILL_TO", "TYPE_RETURN_TO"] as const

/** Enum prefixes, longest first: used by the unknownEnum fault to mint values no client knows. */
export const ENUM_PREFIXES: ReadonlyArray<string> = [
  "VENDOR_CATALOG_VARIANT_STOCK_LABEL_",
  "VENDOR_SHIPPING_VERIFICATION_STATUS_",
  "VENDOR_PRODUCT_MATCHING_STATUS_",
  "VENDOR_ORDER_PAYMENT_STATUS_",
  "VENDOR_ORDER_REFUND_STATUS_",
  "VENDOR_ORDER_CANCEL_STATUS_",
  "VENDOR_ORDER_DRAFT_STATUS_",
  "VENDOR_FULFILLMENT_PRIORITY_",
  "VENDOR_FULFILLMENT_VENDOR_",
  "VENDOR_CREATED_METHOD_",
  "VENDOR_ORDER_STATUS_",
  "VENDOR_STOCK_LABEL_",
  "MARKETPLACE_PLATFORM_",
  "PRINT_LOCATION_CODE_",
  "TRACKING_TYPE_",
  "METHOD_",
  "TOPIC_",
  "STATUS_",
  "VERSION_"
]

/** Enum values as the published contract numbers them (protobuf numbers; 0 is "unspecified" and never sent). */
const numbered = (first: number, names: ReadonlyArray<string>): ReadonlyArray<readonly [string, number]> =>
  names.map((name, index) => [name, first + index] as const)

export const ENUM_NUMBERS: ReadonlyMap<string, number> = new Map([
  ...numbered(2, MARKETPLACE_PLATFORMS),
  ...numbered(2, ORDER_STATUSES.map((s) => ORDER_STATUS_PREFIX + s)),
  ...numbered(2, PAYMENT_STATUSES.map((s) => PAYMENT_STATUS_PREFIX + s)),
  ...numbered(2, DRAFT_STATUSES.map((s) => DRAFT_STATUS_PREFIX + s)),
  ...numbered(2, CREATED_METHODS),
  ...numbered(2, SHIPPING_METHODS),
  ...numbered(1, PRINT_LOCATIONS.map((l) => PRINT_LOCATION_PREFIX + l)),
  ...numbered(1, CATALOG_STOCK_LABELS.map((l) => CATALOG_STOCK_PREFIX + l)),
  ...numbered(1, [
    "VENDOR_STOCK_LABEL_IN_STOCK",
    "VENDOR_STOCK_LABEL_OUT_OF_STOCK",
    "VENDOR_STOCK_LABEL_AT_RISK",
    "VENDOR_STOCK_LABEL_DISCONTINUED"
  ]),
  ...numbered(2, WEBHOOK_STATUSES),
  ...numbered(2, WEBHOOK_VERSIONS),
  ...numbered(2, WEBHOOK_TOPICS),
  ...numbered(2, ADDRESS_TYPES),
  ...numbered(1, ["TRACKING_TYPE_PRIMARY", "TRACKING_TYPE_SECONDARY", "TRACKING_TYPE_OUTDATED"]),
  ...numbered(2, ["VENDOR_FULFILLMENT_VENDOR_GEARMENT", "VENDOR_FULFILLMENT_VENDOR_AMAZON"]),
  ...numbered(2, ["VENDOR_FULFILLMENT_PRIORITY_NORMAL", "VENDOR_FULFILLMENT_PRIORITY_RUSH"]),
  ["VENDOR_PURCHASE_TRACKING_TIME_DEFAULT", 1],
  ["VENDOR_PURCHASE_TRACKING_TIME_IMMEDIATELY_AFTER_THE_PAYMENT_TIME", 2],
  ["VENDOR_PURCHASE_TRACKING_TIME_WITHIN_A_SPECIFIC_NUMBER_OF_DAY", 4],
  ...numbered(2, [
    "VENDOR_SHIPPING_VERIFICATION_STATUS_PENDING",
    "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_INVALID",
    "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_VALID",
    "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_UNVERIFIED",
    "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_VERIFIED"
  ]),
  ...numbered(2, ["VENDOR_PRODUCT_MATCHING_STATUS_MATCHED", "VENDOR_PRODUCT_MATCHING_STATUS_UNMATCHED"]),
  ...numbered(1, ["TYPE_CUSTOM_IMAGE", "TYPE_UPLOAD_IMAGE"]),
  ...numbered(2, ["VENDOR_ORDER_REFUND_STATUS_NOT_REQUESTED", "VENDOR_ORDER_REFUND_STATUS_NOT_APPLICABLE"]),
  ...numbered(2, [
    "VENDOR_ORDER_CANCEL_STATUS_NOT_REQUESTED",
    "VENDOR_ORDER_CANCEL_STATUS_REQUESTED",
    "VENDOR_ORDER_CANCEL_STATUS_PROCESSING",
    "VENDOR_ORDER_CANCEL_STATUS_CANCELED"
  ])
])

export const isOneOf = <T extends string>(values: ReadonlyArray<T>, value: unknown): value is T =>
  typeof value === "string" && (values as ReadonlyArray<string>).includes(value)

/** Accepts a status written as its suffix (`SHIPPED`) or its full name (`VENDOR_ORDER_STATUS_SHIPPED`). */
export const parseSuffix = <T extends string>(values: ReadonlyArray<T>, prefix: string, text: string): T | undefined => {
  const upper = text.toUpperCase()
  const suffix = upper.startsWith(prefix) ? upper.slice(prefix.length) : upper
  return isOneOf(values, suffix) ? suffix : undefined
}
