// Valid request bodies for tests, the demo and manual poking: a shipping
// address inside every limit and a one-line draft.
import type { Json } from "./wire.js"

export const sampleAddress = {
  first_name: "Ada",
  last_name: "Lovelace",
  street_1: "12 Analytical Way",
  street_2: "Suite 3",
  city: "Los Angeles",
  state_code: "CA",
  zip_code: "90012",
  country_code: "US",
  phone_no: "+1 (213) 555-0100",
  email: "ada@example.com"
} as const

export interface SampleDraftOptions {
  readonly variantId: string
  readonly referenceId?: string
  readonly storeId?: string
  readonly quantity?: number
  readonly autoApprove?: boolean
}

/** The `data` of a valid POST /api/v3/orders/draft body. */
export const sampleDraftData = (options: SampleDraftOptions): Record<string, Json> => ({
  ...(options.referenceId === undefined ? {} : { reference_id: options.referenceId }),
  platform: "MARKETPLACE_PLATFORM_SHOPIFY",
  store_id: options.storeId ?? "store-1",
  address: { ...sampleAddress },
  shipping_method: "METHOD_STANDARD",
  ...(options.autoApprove === undefined ? {} : { auto_approve: options.autoApprove }),
  line_items: [
    {
      variant_id: options.variantId,
      quantity: options.quantity ?? 1,
      printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://designs.example.com/front.png" }]
    }
  ]
})
