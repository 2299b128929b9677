/**
 * The carrier names Etsy knows, from `getShippingCarriers(origin_country_iso)` (store-apis.md §0:
 * `carrier_name` has no enum), so a shipment names its carrier as Etsy spells it and the buyer's
 * shipping email links the tracking. The POD's carrier is matched case-insensitively and through known
 * aliases (CarrierNames.ts); a carrier Etsy does not list goes as `other`, its name and link in the
 * note to the buyer (the only place the contract leaves for them).
 *
 * The origin is `shipsFromCountry` when configured, else the shop's `shipping_from_country_iso`
 * (getShop, read once). Both reads are public calls (the app's key only). The list is kept per origin
 * for a day; when it cannot be read again, the one kept is used, and without one the push fails as
 * the store being unavailable (nothing was sent, it is retried).
 */
import { Clock, Effect, Option, Ref, Schema } from "effect"
import { matchCarrier } from "../CarrierNames.js"
import { StoreApiError, type StoreError } from "../StoreErrors.js"
import type { EtsyHttp } from "./EtsyHttp.js"

/** How long a carrier list is used before it is read again. */
export const CARRIER_LIST_TTL_MS = 24 * 60 * 60 * 1000

/** When neither the config nor the shop says where packages ship from. */
const FALLBACK_ORIGIN = "US"

const ShippingCarriers = Schema.Struct({
  results: Schema.Array(Schema.Struct({ name: Schema.String }))
})

const Shop = Schema.Struct({
  shipping_from_country_iso: Schema.optional(Schema.NullOr(Schema.String)),
  shop_location_country_iso: Schema.optional(Schema.NullOr(Schema.String))
})

/** What to send for a package's carrier: Etsy's name for it, or `other`. */
export type EtsyCarrierChoice = { readonly _tag: "Known"; readonly name: string } | { readonly _tag: "Other" }

export interface EtsyCarriers {
  readonly choose: (company: string) => Effect.Effect<EtsyCarrierChoice, StoreError>
}

interface Listed {
  readonly names: ReadonlyArray<string>
  readonly readAt: number
}

export const makeEtsyCarriers = (
  settings: { readonly storeKey: string; readonly shopId: string; readonly shipsFromCountry?: string | undefined },
  http: EtsyHttp
): Effect.Effect<EtsyCarriers> =>
  Effect.gen(function*() {
    const { storeKey } = settings
    const origin = yield* Ref.make(Option.fromNullable(settings.shipsFromCountry?.toUpperCase()))
    const lists = yield* Ref.make(new Map<string, Listed>())

    const refused = (operation: string, message: string) => new StoreApiError({ storeKey, operation, messages: [message] })

    const originCountry: Effect.Effect<string, StoreError> = Effect.gen(function*() {
      const known = yield* Ref.get(origin)
      if (Option.isSome(known)) return known.value
      const answer = yield* http.run({
        operation: "getShop",
        method: "GET",
        path: `/shops/${settings.shopId}`,
        write: false,
        lane: "other",
        access: "public",
        schema: Shop
      })
      if (answer._tag === "Refused") return yield* refused("getShop", answer.message)
      const country = answer.value.shipping_from_country_iso ?? answer.value.shop_location_country_iso
      if (country == null || !/^[A-Za-z]{2}$/.test(country)) {
        yield* Effect.logWarning(
          `store ${storeKey}: Etsy does not say where shop ${settings.shopId} ships from; carriers are read for ${FALLBACK_ORIGIN} (set etsy.shipsFromCountry)`
        )
      }
      const chosen = country != null && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : FALLBACK_ORIGIN
      yield* Ref.set(origin, Option.some(chosen))
      return chosen
    })

    const read = (country: string): Effect.Effect<ReadonlyArray<string>, StoreError> =>
      Effect.flatMap(
        http.run({
          operation: "getShippingCarriers",
          method: "GET",
          path: "/shipping-carriers",
          query: { origin_country_iso: country },
          write: false,
          lane: "other",
          access: "public",
          schema: ShippingCarriers
        }),
        (answer) =>
          answer._tag === "Refused"
            ? Effect.fail(refused("getShippingCarriers", answer.message))
            : Effect.succeed(answer.value.results.map((c) => c.name))
      )

    const names = (country: string): Effect.Effect<ReadonlyArray<string>, StoreError> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const kept = (yield* Ref.get(lists)).get(country)
        if (kept !== undefined && now - kept.readAt < CARRIER_LIST_TTL_MS) return kept.names
        const fresh = yield* Effect.either(read(country))
        if (fresh._tag === "Left") {
          if (kept === undefined) return yield* fresh.left
          yield* Effect.logWarning(
            `store ${storeKey}: Etsy's carriers could not be read again (${fresh.left.message}); the list of a day ago is used`
          )
          return kept.names
        }
        yield* Ref.update(lists, (map) => new Map(map).set(country, { names: fresh.right, readAt: now }))
        return fresh.right
      })

    const choose: EtsyCarriers["choose"] = (company) =>
      Effect.map(Effect.flatMap(originCountry, names), (known): EtsyCarrierChoice => {
        const name = matchCarrier(company, known)
        return name === undefined ? { _tag: "Other" } : { _tag: "Known", name }
      })

    return { choose }
  })
