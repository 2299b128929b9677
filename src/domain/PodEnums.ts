/**
 * The enumerations of the POD API v3, exchanged as their string names.
 *
 * These are the values known today. Responses may carry values added later:
 * the response schemas keep them (see src/pod/schemas/OpenEnum.ts), so code
 * that branches on these must have a branch for "something else".
 */

export const CreatedMethods = [
  "VENDOR_CREATED_METHOD_SYNC",
  "VENDOR_CREATED_METHOD_MANUAL",
  "VENDOR_CREATED_METHOD_API",
  "VENDOR_CREATED_METHOD_IMPORT",
  "VENDOR_CREATED_METHOD_LABEL"
] as const
export type CreatedMethod = (typeof CreatedMethods)[number]

export const OrderStatuses = [
  "VENDOR_ORDER_STATUS_AWAITING_PAYMENT",
  "VENDOR_ORDER_STATUS_PAYMENT_FAILED",
  "VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT",
  "VENDOR_ORDER_STATUS_IN_PRODUCTION",
  "VENDOR_ORDER_STATUS_PACKED",
  "VENDOR_ORDER_STATUS_SHIPPED",
  "VENDOR_ORDER_STATUS_CANCELLED",
  "VENDOR_ORDER_STATUS_ON_HOLD"
] as const
export type OrderStatus = (typeof OrderStatuses)[number]

export const PaymentStatuses = [
  "VENDOR_ORDER_PAYMENT_STATUS_PENDING",
  "VENDOR_ORDER_PAYMENT_STATUS_SUCCESS",
  "VENDOR_ORDER_PAYMENT_STATUS_FAILED",
  "VENDOR_ORDER_PAYMENT_STATUS_EXPIRED",
  "VENDOR_ORDER_PAYMENT_STATUS_SUCCESS_PARTIALLY"
] as const
export type PaymentStatus = (typeof PaymentStatuses)[number]

export const DraftStatuses = [
  "VENDOR_ORDER_DRAFT_STATUS_DRAFT",
  "VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT",
  "VENDOR_ORDER_DRAFT_STATUS_CHECKED_OUT",
  "VENDOR_ORDER_DRAFT_STATUS_DELETED",
  "VENDOR_ORDER_DRAFT_STATUS_ARCHIVED"
] as const
export type DraftStatus = (typeof DraftStatuses)[number]

export const RefundStatuses = [
  "VENDOR_ORDER_REFUND_STATUS_NOT_REQUESTED",
  "VENDOR_ORDER_REFUND_STATUS_NOT_APPLICABLE",
  "VENDOR_ORDER_REFUND_STATUS_REQUESTED",
  "VENDOR_ORDER_REFUND_STATUS_PROCESSING",
  "VENDOR_ORDER_REFUND_STATUS_REFUNDED",
  "VENDOR_ORDER_REFUND_STATUS_PARTIALLY_REFUNDED",
  "VENDOR_ORDER_REFUND_STATUS_RETURN_REFUND_REQUESTED",
  "VENDOR_ORDER_REFUND_STATUS_RETURN_REFUNDED",
  "VENDOR_ORDER_REFUND_STATUS_REJECTED",
  "VENDOR_ORDER_REFUND_STATUS_FAILED"
] as const
export type RefundStatus = (typeof RefundStatuses)[number]

export const CancelStatuses = [
  "VENDOR_ORDER_CANCEL_STATUS_NOT_REQUESTED",
  "VENDOR_ORDER_CANCEL_STATUS_REQUESTED",
  "VENDOR_ORDER_CANCEL_STATUS_PROCESSING",
  "VENDOR_ORDER_CANCEL_STATUS_CANCELED",
  "VENDOR_ORDER_CANCEL_STATUS_PARTIALLY_CANCELED",
  "VENDOR_ORDER_CANCEL_STATUS_RETURN_REQUESTED",
  "VENDOR_ORDER_CANCEL_STATUS_RETURNED",
  "VENDOR_ORDER_CANCEL_STATUS_RETURN_REJECTED",
  "VENDOR_ORDER_CANCEL_STATUS_REJECTED",
  "VENDOR_ORDER_CANCEL_STATUS_FAILED"
] as const
export type CancelStatus = (typeof CancelStatuses)[number]

/** METHOD_ECONOMY (6): US only, and only where its carrier serves the ZIP (see mapping/EconomyShipping.ts). */
export const ShippingMethods = ["METHOD_STANDARD", "METHOD_GROUND", "METHOD_FAST_SHIP", "METHOD_STAMP", "METHOD_ECONOMY"] as const
export type ShippingMethod = (typeof ShippingMethods)[number]

export const PrintLocationCodes = [
  "PRINT_LOCATION_CODE_WHOLE",
  "PRINT_LOCATION_CODE_FRONT",
  "PRINT_LOCATION_CODE_BACK",
  "PRINT_LOCATION_CODE_LEFT_SLEEVE",
  "PRINT_LOCATION_CODE_RIGHT_SLEEVE",
  "PRINT_LOCATION_CODE_POCKET",
  "PRINT_LOCATION_CODE_INSIDE_LABEL",
  "PRINT_LOCATION_CODE_OUTSIDE_LABEL"
] as const
export type PrintLocationCode = (typeof PrintLocationCodes)[number]

/** Lower-case print location names accepted by the price quote besides the enum names. */
export const PrintLocationNames = ["front", "back", "left_sleeve", "right_sleeve", "pocket", "whole"] as const
export type PrintLocationName = (typeof PrintLocationNames)[number]

export const PurchaseTrackingTimes = [
  "VENDOR_PURCHASE_TRACKING_TIME_DEFAULT",
  "VENDOR_PURCHASE_TRACKING_TIME_IMMEDIATELY_AFTER_THE_PAYMENT_TIME",
  "VENDOR_PURCHASE_TRACKING_TIME_ONCE_ALL_ITEMS_ARE_PRINTED",
  "VENDOR_PURCHASE_TRACKING_TIME_WITHIN_A_SPECIFIC_NUMBER_OF_DAY"
] as const
export type PurchaseTrackingTime = (typeof PurchaseTrackingTimes)[number]

/**
 * The published contract names the service itself GEARMENT (2) and Amazon (3); the
 * shape-only spec writes the first as SERVICE, which the client also accepts.
 */
export const FulfillmentVendors = [
  "VENDOR_FULFILLMENT_VENDOR_GEARMENT",
  "VENDOR_FULFILLMENT_VENDOR_AMAZON",
  "VENDOR_FULFILLMENT_VENDOR_SERVICE"
] as const
export type FulfillmentVendor = (typeof FulfillmentVendors)[number]
export const FulfillmentVendorNumbers = [2, 3, undefined] as const

export const FulfillmentPriorities = ["VENDOR_FULFILLMENT_PRIORITY_NORMAL", "VENDOR_FULFILLMENT_PRIORITY_RUSH"] as const
export type FulfillmentPriority = (typeof FulfillmentPriorities)[number]

export const ShippingVerificationStatuses = [
  "VENDOR_SHIPPING_VERIFICATION_STATUS_PENDING",
  "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_INVALID",
  "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_VALID",
  "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_UNVERIFIED",
  "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_VERIFIED"
] as const
export type ShippingVerificationStatus = (typeof ShippingVerificationStatuses)[number]

export const ProductMatchingStatuses = [
  "VENDOR_PRODUCT_MATCHING_STATUS_MATCHED",
  "VENDOR_PRODUCT_MATCHING_STATUS_UNMATCHED"
] as const
export type ProductMatchingStatus = (typeof ProductMatchingStatuses)[number]

export const TrackingTypes = ["TRACKING_TYPE_PRIMARY", "TRACKING_TYPE_SECONDARY", "TRACKING_TYPE_OUTDATED"] as const
export type TrackingType = (typeof TrackingTypes)[number]

export const OrderStockLabels = [
  "VENDOR_STOCK_LABEL_IN_STOCK",
  "VENDOR_STOCK_LABEL_OUT_OF_STOCK",
  "VENDOR_STOCK_LABEL_AT_RISK",
  "VENDOR_STOCK_LABEL_DISCONTINUED"
] as const
export type OrderStockLabel = (typeof OrderStockLabels)[number]

export const CatalogStockLabels = [
  "VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK",
  "VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK",
  "VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK_5D",
  "VENDOR_CATALOG_VARIANT_STOCK_LABEL_DISCONTINUED"
] as const
export type CatalogStockLabel = (typeof CatalogStockLabels)[number]

export const WebhookStatuses = ["STATUS_ACTIVE", "STATUS_INACTIVE"] as const
export type WebhookStatus = (typeof WebhookStatuses)[number]

/** The spec's topics plus the two the real service also has (ARCHITECTURE.md). */
export const WebhookTopics = [
  "TOPIC_ORDER_COMPLETED",
  "TOPIC_ORDER_CANCELLED",
  "TOPIC_TRACKING_ORDER_UPDATED",
  "TOPIC_ORDER_ON_HOLD",
  "TOPIC_SHIPPING_ADDRESS_VERIFIED",
  "TOPIC_SHIPPING_ADDRESS_UNVERIFIED",
  "TOPIC_PRODUCT_OUT_OF_STOCK"
] as const
export type WebhookTopic = (typeof WebhookTopics)[number]

export const WebhookVersions = ["VERSION_V1", "VERSION_V3"] as const
export type WebhookVersion = (typeof WebhookVersions)[number]

/** The 15 marketplace platforms in the service's order; position 7 is the service's own. */
export const MarketplacePlatforms = [
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
export type MarketplacePlatform = (typeof MarketplacePlatforms)[number]

/** The price quote's lower-case platform names: "shopify", "gearment", … (plus the empty string). */
export type PricePlatformName = Lowercase<MarketplacePlatform extends `MARKETPLACE_PLATFORM_${infer N}` ? N : never> | ""

export const pricePlatformName = (platform: MarketplacePlatform): PricePlatformName =>
  platform.replace("MARKETPLACE_PLATFORM_", "").toLowerCase() as PricePlatformName

export const AddressTypes = ["TYPE_SHIP_FROM", "TYPE_SHIP_TO", "TYPE_BILL_TO", "TYPE_RETURN_TO"] as const
export type AddressType = (typeof AddressTypes)[number]

export const GiftMessageTypes = ["TYPE_CUSTOM_IMAGE", "TYPE_UPLOAD_IMAGE"] as const
export type GiftMessageType = (typeof GiftMessageTypes)[number]

export const FileStorageTypes = [
  "STORAGE_TYPE_S3",
  "STORAGE_TYPE_CLOUDFLARE",
  "STORAGE_TYPE_S3_LEGACY",
  "STORAGE_TYPE_EXTERNAL"
] as const

/** The sales channel the partner says an order was placed on (published contract; not the integration platform). */
export const OriginSalesChannels = [
  "ORIGIN_SALES_CHANNEL_DIRECT",
  "ORIGIN_SALES_CHANNEL_ETSY",
  "ORIGIN_SALES_CHANNEL_EBAY",
  "ORIGIN_SALES_CHANNEL_AMAZON",
  "ORIGIN_SALES_CHANNEL_SHOPIFY",
  "ORIGIN_SALES_CHANNEL_WOOCOMMERCE",
  "ORIGIN_SALES_CHANNEL_SHOPBASE",
  "ORIGIN_SALES_CHANNEL_ORDERDESK",
  "ORIGIN_SALES_CHANNEL_TIKTOKSHOP",
  "ORIGIN_SALES_CHANNEL_OTHER_MARKETPLACE"
] as const

export const EnvelopeStatuses = ["success", "error"] as const
export type EnvelopeStatus = (typeof EnvelopeStatuses)[number]
