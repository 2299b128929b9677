/** Catalog products and variants (GET /api/v3/catalog, /catalog/variants, /catalog/variants/stock). */
import { Schema } from "effect"
import type { Money } from "../../domain/Money.js"
import type { CatalogStockLabel as CatalogStockLabelValue } from "../../domain/PodEnums.js"
import {
  CatalogStockLabel,
  IntegerLike,
  ListEnvelope,
  MoneyFromWire,
  opt,
  PrintLocation,
  type PagingQuery
} from "./Common.js"
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
  readonly price?: Money
  readonly recommended_price?: Money
  readonly extra_price?: Money
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
  readonly price?: MoneyWireEncoded | null
  readonly recommended_price?: MoneyWireEncoded | null
  readonly extra_price?: MoneyWireEncoded | null
  readonly stock_label?: string | null
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
  /** Not in the spec's field list, but `filter.skus` filters on it and mapping suggestions match by it. */
  sku: opt(Schema.String),
  price: opt(MoneyFromWire),
  recommended_price: opt(MoneyFromWire),
  extra_price: opt(MoneyFromWire),
  stock_label: opt(CatalogStockLabel),
  product: opt(Schema.suspend((): Schema.Schema<CatalogProductRef, CatalogProductRefEncoded> => CatalogProductRef)),
  legacy_variant_id: opt(IntegerLike)
}).annotations({ identifier: "CatalogVariant" })

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
