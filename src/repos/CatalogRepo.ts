import { Clock, Effect, Option, Ref, Schema } from "effect"
import { sql } from "kysely"
import { Db, type DbError } from "../db/Db.js"
import { type Money, MoneyFromWire } from "../domain/Money.js"
import type { CatalogEntry, CatalogLookup } from "../domain/MappingTable.js"
import { CatalogVariant, variantSku } from "../pod/schemas/Catalog.js"

/** A cached POD catalog variant, as matching and suggestions need it. */
export interface CatalogRecord extends CatalogEntry {
  readonly productId: string | undefined
  readonly productName: string | undefined
  readonly variantName: string | undefined
  readonly color: string | undefined
  readonly size: string | undefined
  readonly sku: string | undefined
  /** The colour's swatch (`hex_color_code`), the price and the product's image, for the console's product picker. */
  readonly hexColor: string | undefined
  readonly price: Money | undefined
  readonly imageUrl: string | undefined
}

export interface CatalogUpsert {
  /** Variants the cache did not hold. */
  readonly added: number
  /** Variants whose stock label changed (back in stock, out of stock, discontinued). */
  readonly stockChanged: number
}

const encodeVariant = Schema.encodeSync(CatalogVariant)
const encodeMoney = Schema.encodeSync(MoneyFromWire)
const RawSku = Schema.Struct({
  sku: Schema.optionalWith(Schema.String, { nullable: true }),
  variant_sku: Schema.optionalWith(Schema.String, { nullable: true }),
  product: Schema.optionalWith(
    Schema.Struct({ product_avatar_url: Schema.optionalWith(Schema.String, { nullable: true }) }),
    { nullable: true }
  )
})
const decodeRawSku = Schema.decodeUnknownOption(RawSku)
const decodePrice = Schema.decodeUnknownOption(MoneyFromWire)
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as object

// Other replicas refresh the cache too: look for their writes this often.
const SNAPSHOT_CHECK_MILLIS = 30_000

interface Snapshot {
  readonly version: string
  readonly checkedAt: number
  readonly lookup: CatalogLookup | undefined
}

const entryName = (productName: string | null, name: string | null, variantId: string) =>
  [productName, name].filter((part) => part !== null && part !== "").join(", ") || variantId

/**
 * `catalog_variants`, the cached POD catalog, and an in-memory snapshot of it
 * for the planner: `lookup` is `undefined` while the cache is empty, so
 * orders are not held for want of a catalog.
 */
export class CatalogRepo extends Effect.Service<CatalogRepo>()("podsync/CatalogRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db
    const snapshot = yield* Ref.make(Option.none<Snapshot>())

    /** Stores a page of variants as of `at`, telling which are new and which changed stock. */
    const upsert = (variants: ReadonlyArray<CatalogVariant>, at: Date): Effect.Effect<CatalogUpsert, DbError> =>
      variants.length === 0 ? Effect.succeed({ added: 0, stockChanged: 0 }) : db.transaction(Effect.gen(function*() {
        const ids = variants.map((v) => v.variant_id)
        const before = yield* db.use((k) =>
          k.selectFrom("catalog_variants").select(["variant_id", "stock_label"]).where("variant_id", "in", ids).execute()
        )
        const known = new Map(before.map((r) => [r.variant_id, r.stock_label]))
        let added = 0
        let stockChanged = 0
        for (const v of variants) {
          if (!known.has(v.variant_id)) added++
          else if ((known.get(v.variant_id) ?? null) !== (v.stock_label ?? null)) stockChanged++
        }
        const rows = variants.map((v) => ({
          variant_id: v.variant_id,
          legacy_variant_id: v.legacy_variant_id ?? null,
          product_id: v.product?.product_id ?? null,
          product_name: v.product?.product_name ?? null,
          name: v.name ?? null,
          color: v.color ?? null,
          size: v.size ?? null,
          hex_color_code: v.hex_color_code ?? null,
          stock_label: v.stock_label ?? null,
          price: v.price === undefined ? null : asJson(encodeMoney(v.price)),
          raw: asJson(encodeVariant(v)),
          refreshed_at: at
        }))
        yield* db.use((k) =>
          k.insertInto("catalog_variants").values(rows).onConflict((oc) =>
            oc.column("variant_id").doUpdateSet((eb) => ({
              legacy_variant_id: eb.ref("excluded.legacy_variant_id"),
              product_id: eb.ref("excluded.product_id"),
              product_name: eb.ref("excluded.product_name"),
              name: eb.ref("excluded.name"),
              color: eb.ref("excluded.color"),
              size: eb.ref("excluded.size"),
              hex_color_code: eb.ref("excluded.hex_color_code"),
              stock_label: eb.ref("excluded.stock_label"),
              price: eb.ref("excluded.price"),
              raw: eb.ref("excluded.raw"),
              refreshed_at: eb.ref("excluded.refreshed_at")
            }))
          ).execute()
        )
        return { added, stockChanged }
      }))

    /** After a complete refresh started at `at`: drops variants the service no longer lists. */
    const pruneOlderThan = (at: Date) =>
      db.use((k) => k.deleteFrom("catalog_variants").where("refreshed_at", "<", at).executeTakeFirst()).pipe(
        Effect.map((result) => Number(result.numDeletedRows))
      )

    const entries: Effect.Effect<ReadonlyArray<CatalogRecord>, DbError> = db.use((k) =>
      k.selectFrom("catalog_variants")
        .select([
          "variant_id",
          "legacy_variant_id",
          "product_id",
          "product_name",
          "name",
          "color",
          "size",
          "hex_color_code",
          "price",
          "stock_label",
          "raw"
        ])
        .orderBy("variant_id").execute()
    ).pipe(Effect.map((rows) =>
      rows.map((r): CatalogRecord => {
        const raw = decodeRawSku(r.raw)
        return {
          variantId: r.variant_id,
          legacyId: r.legacy_variant_id === null ? undefined : Number(r.legacy_variant_id),
          name: entryName(r.product_name, r.name, r.variant_id),
          stockLabel: r.stock_label ?? "",
          productId: r.product_id ?? undefined,
          productName: r.product_name ?? undefined,
          variantName: r.name ?? undefined,
          color: r.color ?? undefined,
          size: r.size ?? undefined,
          sku: Option.getOrUndefined(Option.flatMap(raw, (v) => Option.fromNullable(variantSku(v)))),
          hexColor: r.hex_color_code ?? undefined,
          price: r.price === null ? undefined : Option.getOrUndefined(decodePrice(r.price)),
          imageUrl: Option.getOrUndefined(Option.flatMap(raw, (v) => Option.fromNullable(v.product?.product_avatar_url)))
        }
      })
    ))

    const version = db.use((k) =>
      k.selectFrom("catalog_variants")
        .select([sql<string>`count(*)::text`.as("n"), sql<string>`coalesce(max(refreshed_at)::text, '')`.as("at")])
        .executeTakeFirstOrThrow()
    ).pipe(Effect.map((r) => `${r.n}@${r.at}`))

    const buildLookup = (records: ReadonlyArray<CatalogRecord>): CatalogLookup | undefined => {
      if (records.length === 0) return undefined
      const byId = new Map<string, CatalogEntry>()
      const byLegacy = new Map<string, CatalogEntry>()
      const bySku = new Map<string, CatalogEntry>()
      for (const r of records) {
        const entry: CatalogEntry = { variantId: r.variantId, legacyId: r.legacyId, name: r.name, stockLabel: r.stockLabel }
        byId.set(r.variantId, entry)
        if (r.legacyId !== undefined) byLegacy.set(String(r.legacyId), entry)
        if (r.sku !== undefined) bySku.set(r.sku.toLowerCase(), entry)
      }
      return (key) =>
        "variantId" in key
          ? byId.get(key.variantId)
          : "legacyId" in key
          ? byLegacy.get(String(Number(key.legacyId)))
          : bySku.get(key.sku.toLowerCase())
    }

    /** Rebuilds the in-memory snapshot from the table (after a refresh). */
    const reloadSnapshot = Effect.gen(function*() {
      const checkedAt = yield* Clock.currentTimeMillis
      const v = yield* version
      const lookup = buildLookup(yield* entries)
      yield* Ref.set(snapshot, Option.some({ version: v, checkedAt, lookup }))
      return lookup
    })

    /** The cached catalog as a lookup, or `undefined` while it is empty. */
    const lookup: Effect.Effect<CatalogLookup | undefined, DbError> = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const current = yield* Ref.get(snapshot)
      if (Option.isSome(current) && now - current.value.checkedAt < SNAPSHOT_CHECK_MILLIS) return current.value.lookup
      if (Option.isSome(current) && (yield* version) === current.value.version) {
        yield* Ref.set(snapshot, Option.some({ ...current.value, checkedAt: now }))
        return current.value.lookup
      }
      return yield* reloadSnapshot
    })

    return { upsert, pruneOlderThan, entries, lookup, reloadSnapshot }
  })
}) {}
