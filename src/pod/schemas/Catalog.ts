/** Catalog products and variants (GET /api/v3/catalog, /catalog/variants, /catalog/variants/stock). */
import { Schema } from "effect"
import type { Money } from "../../domain/Money.js"
import type { CatalogStockLabel as CatalogStockLabelValue } from "../../domain/PodEnums.js"
import { CatalogStockLabel, IntegerLike, ListEnvelope, MoneyFromWire, opt, PrintLocation, type PagingQuery } from "./Common.js"
import type { Open } from "./OpenEnum.js"

type PrintLocationType = typeof PrintLocation.Type
type PrintLocationEncoded = typeof PrintLocation.Encoded
type IntegerLikeEncoded = typeof IntegerLike.Encoded

/** The parent product embedded in a variant; it may carry variants again (the spec's shape is recursive). */
export interface CatalogProductRef {
  readonly product_id?: string
  readonly product_name?: string
  readonly product_avatar_url?: string
  readonly print_locations?: ReadonlyArray<PrintLocationType>
  readonly variants?: ReadonlyArray<CatalogVariant>
  readonly legacy_product_id?: number
}
interface CatalogProductRefEncoded {
  readonly product_id?: string | null
  readonly product_name?: string | null
  readonly product_avatar_url?: string | null
  readonly print_locations?: ReadonlyArray<PrintLocationEncoded> | null
  readonly variants?: ReadonlyArray<CatalogVariantEncoded> | null
  readonly legacy_product_id?: IntegerLikeEncoded | null
}

export interface CatalogVariant {
  readonly variant_id: string
  readonly name?: string
  readonly size?: string
  readonly color?: string
  readonly hex_color_code?: string
  readonly sku?: string
  readonly variant_sku?: string
  readonly color_code?: string
  readonly size_code?: string
  readonly price?: Money
  readonly recommended_price?: Money
  readonly extra_price?: Money
  readonly net_price?: Money
  readonly stock_label?: Open<CatalogStockLabelValue>
  readonly product?: CatalogProductRef
  readonly legacy_variant_id?: number
}
interface CatalogVariantEncoded {
  readonly variant_id: string
  readonly name?: string | null
  readonly size?: string | null
  readonly color?: string | null
  readonly hex_color_code?: string | null
  readonly sku?: string | null
  readonly variant_sku?: string | null
  readonly color_code?: string | null
  readonly size_code?: string | null
  readonly price?: MoneyWireEncoded | null
  readonly recommended_price?: MoneyWireEncoded | null
  readonly extra_price?: MoneyWireEncoded | null
  readonly net_price?: MoneyWireEncoded | null
  readonly stock_label?: string | number | null
  readonly product?: CatalogProductRefEncoded | null
  readonly legacy_variant_id?: IntegerLikeEncoded | null
}
type MoneyWireEncoded = typeof MoneyFromWire.Encoded

export const CatalogProductRef: Schema.Schema<CatalogProductRef, CatalogProductRefEncoded> = Schema.Struct({
  product_id: opt(Schema.String),
  product_name: opt(Schema.String),
  product_avatar_url: opt(Schema.String),
  print_locations: opt(Schema.Array(PrintLocation)),
  variants: opt(Schema.Array(Schema.suspend((): Schema.Schema<CatalogVariant, CatalogVariantEncoded> => CatalogVariant))),
  legacy_product_id: opt(IntegerLike)
}).annotations({ identifier: "CatalogProductRef" })

export const CatalogVariant: Schema.Schema<CatalogVariant, CatalogVariantEncoded> = Schema.Struct({
  variant_id: Schema.String,
  name: opt(Schema.String),
  size: opt(Schema.String),
  color: opt(Schema.String),
  hex_color_code: opt(Schema.String),
  /** The shape-only spec's name for the SKU; the service sends `variant_sku` (read both with `variantSku`). */
  sku: opt(Schema.String),
  variant_sku: opt(Schema.String),
  color_code: opt(Schema.String),
  size_code: opt(Schema.String),
  price: opt(MoneyFromWire),
  recommended_price: opt(MoneyFromWire),
  extra_price: opt(MoneyFromWire),
  /** What the service charges this team for the variant. */
  net_price: opt(MoneyFromWire),
  stock_label: opt(CatalogStockLabel),
  product: opt(Schema.suspend((): Schema.Schema<CatalogProductRef, CatalogProductRefEncoded> => CatalogProductRef)),
  legacy_variant_id: opt(IntegerLike)
}).annotations({ identifier: "CatalogVariant" })

/** A variant's SKU, under the published name (`variant_sku`) or the spec's (`sku`); undefined when neither is set. */
export const variantSku = (variant: { readonly variant_sku?: string | undefined; readonly sku?: string | undefined }): string | undefined =>
  variant.variant_sku || variant.sku || undefined

export const CatalogProduct = Schema.Struct({
  product_id: Schema.String,
  product_name: opt(Schema.String),
  product_avatar_url: opt(Schema.String),
  print_locations: opt(Schema.Array(PrintLocation)),
  variants: opt(Schema.Array(CatalogVariant)),
  legacy_product_id: opt(IntegerLike)
}).annotations({ identifier: "CatalogProduct" })
export type CatalogProduct = typeof CatalogProduct.Type

export const CatalogListResponse = ListEnvelope(CatalogProduct)
export const CatalogVariantListResponse = ListEnvelope(CatalogVariant)

/** Query of GET /api/v3/catalog. */
export interface CatalogQuery {
  readonly filter?: {
    readonly product_ids?: ReadonlyArray<string>
    readonly search_text?: string
  }
  readonly paging?: PagingQuery
}

/** Query of GET /api/v3/catalog/variants and /catalog/variants/stock. */
export interface CatalogVariantQuery {
  readonly filter?: {
    readonly color_codes?: ReadonlyArray<string>
    readonly colors?: ReadonlyArray<string>
    readonly legacy_variant_ids?: ReadonlyArray<number>
    readonly product_ids?: ReadonlyArray<string>
    readonly search_text?: string
    readonly size_codes?: ReadonlyArray<string>
    readonly sizes?: ReadonlyArray<string>
    readonly skus?: ReadonlyArray<string>
    readonly stock_labels?: ReadonlyArray<CatalogStockLabelValue>
    readonly variant_ids?: ReadonlyArray<string>
  }
  readonly paging?: PagingQuery
}
