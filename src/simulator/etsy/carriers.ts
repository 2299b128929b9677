/**
 * `getShippingCarriers` (`GET /v3/application/shipping-carriers?origin_country_iso=XX`, store-apis.md
 * §0): the carriers Etsy knows for packages leaving a country, as `ShippingCarriers`
 * (`{count, results: [{shipping_carrier_id, name, domestic_classes, international_classes}]}`). A
 * public call (the app's key only). `carrier_name` of createReceiptShipment has no enum: Etsy takes a
 * carrier it knows (any case; the older lower-case slugs too) or `other`, and links the tracking in
 * the buyer's shipping email only for a carrier it knows.
 */

interface MailClass {
  readonly mail_class_key: string
  readonly name: string
}

export interface SimCarrier {
  readonly shipping_carrier_id: number
  readonly name: string
  readonly domestic_classes: ReadonlyArray<MailClass>
  readonly international_classes: ReadonlyArray<MailClass>
  /** Where the buyer's email links the tracking number (`{n}`). */
  readonly trackingPage: string
}

const classes = (...names: ReadonlyArray<string>): Array<MailClass> =>
  names.map((name) => ({ mail_class_key: name.toLowerCase().replace(/[^a-z0-9]+/g, "_"), name }))

const carrier = (
  id: number,
  name: string,
  trackingPage: string,
  domestic: ReadonlyArray<string>,
  international: ReadonlyArray<string> = []
): SimCarrier => ({
  shipping_carrier_id: id,
  name,
  domestic_classes: classes(...domestic),
  international_classes: classes(...international),
  trackingPage
})

const USPS = carrier(1, "USPS", "https://tools.usps.com/go/TrackConfirmAction?tLabels={n}", [
  "Ground Advantage",
  "Priority Mail",
  "Priority Mail Express"
], ["First-Class Package International", "Priority Mail International"])
const UPS = carrier(2, "UPS", "https://www.ups.com/track?tracknum={n}", ["Ground", "2nd Day Air"], ["Worldwide Saver"])
const FEDEX = carrier(3, "FedEx", "https://www.fedex.com/fedextrack/?trknbr={n}", ["Ground", "Home Delivery", "2Day"], [
  "International Economy"
])
const DHL_EXPRESS = carrier(4, "DHL Express", "https://www.dhl.com/global-en/home/tracking.html?tracking-id={n}", [], [
  "Express Worldwide"
])
const DHL_ECOMMERCE = carrier(5, "DHL eCommerce", "https://webtrack.dhlecommerce.com/?trackingnumber={n}", ["Parcel Expedited"], [
  "Parcel International Direct"
])
const CANADA_POST = carrier(6, "Canada Post", "https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor={n}", [
  "Regular Parcel",
  "Expedited Parcel"
], ["Tracked Packet International"])
const ROYAL_MAIL = carrier(7, "Royal Mail", "https://www.royalmail.com/track-your-item#/tracking-results/{n}", [
  "Tracked 48",
  "Special Delivery Guaranteed"
], ["International Tracked"])
const EVRI = carrier(8, "Evri", "https://www.evri.com/track/parcel/{n}", ["Standard"])
const DPD = carrier(9, "DPD", "https://track.dpd.co.uk/parcels/{n}", ["Next Day"], ["Classic"])
const DEUTSCHE_POST = carrier(10, "Deutsche Post", "https://www.deutschepost.de/sendung/simpleQuery.html?form.sendungsnummer={n}", [
  "Warenpost"
], ["Warenpost International"])
const DHL_PAKET = carrier(11, "DHL Paket", "https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?idc={n}", ["Paket"], [
  "Paket International"
])
const HERMES = carrier(12, "Hermes", "https://www.myhermes.de/empfangen/sendungsverfolgung/sendungsinformation/#{n}", ["Paket"])
const AUSTRALIA_POST = carrier(13, "Australia Post", "https://auspost.com.au/mypost/track/#/details/{n}", ["Parcel Post"], [
  "International Standard"
])
const LA_POSTE = carrier(14, "La Poste", "https://www.laposte.fr/outils/suivre-vos-envois?code={n}", ["Lettre suivie"])
const COLISSIMO = carrier(15, "Colissimo", "https://www.laposte.fr/outils/suivre-vos-envois?code={n}", ["Domicile"], ["International"])
const POSTNL = carrier(16, "PostNL", "https://jouw.postnl.nl/track-and-trace/{n}", ["Pakket"], ["Pakket Internationaal"])
const LATVIJAS_PASTS = carrier(17, "Latvijas Pasts", "https://www.pasts.lv/en/Category/Tracking_of_Postal_Items/?id={n}", ["Parcel"], [
  "International Parcel"
])

/** The carriers Etsy lists by origin country; other countries get the international carriers. */
const byCountry: Readonly<Record<string, ReadonlyArray<SimCarrier>>> = {
  US: [USPS, UPS, FEDEX, DHL_EXPRESS, DHL_ECOMMERCE],
  CA: [CANADA_POST, UPS, FEDEX, DHL_EXPRESS],
  GB: [ROYAL_MAIL, EVRI, DPD, UPS, FEDEX, DHL_EXPRESS],
  DE: [DEUTSCHE_POST, DHL_PAKET, HERMES, DPD, UPS, DHL_EXPRESS],
  AU: [AUSTRALIA_POST, DHL_EXPRESS, FEDEX],
  FR: [LA_POSTE, COLISSIMO, DPD, UPS, DHL_EXPRESS],
  NL: [POSTNL, DPD, UPS, DHL_EXPRESS],
  LV: [LATVIJAS_PASTS, DPD, DHL_EXPRESS]
}
const international: ReadonlyArray<SimCarrier> = [UPS, FEDEX, DHL_EXPRESS]

const allCarriers: ReadonlyArray<SimCarrier> = [...new Set(Object.values(byCountry).flat())]

/** The answer of getShippingCarriers for an origin; a code that is not two letters is Etsy's 400. */
export const shippingCarriers = (originCountryIso: string | null): { status: number; body: unknown } => {
  if (originCountryIso === null || !/^[A-Za-z]{2}$/.test(originCountryIso)) {
    return { status: 400, body: { error: "origin_country_iso must be an ISO 3166-1 alpha-2 country code" } }
  }
  const results = (byCountry[originCountryIso.toUpperCase()] ?? international).map(({ trackingPage: _page, ...c }) => c)
  return { status: 200, body: { count: results.length, results } }
}

/** A carrier name as Etsy compares it: case, spaces, dashes and underscores aside. */
export const carrierKey = (name: string): string => name.trim().toLowerCase().replace(/[\s_-]+/g, "")

/** The lower-case slugs Etsy took before the carrier list (`dhl-express`, `canada-post`), still accepted. */
const slugs: ReadonlyArray<string> = ["usps", "ups", "fedex", "dhl", "dhl-express", "dhl-ecommerce", "canada-post", "royal-mail", "evri"]

/** The carrier Etsy knows by this name, or "other", or undefined for a name it refuses. */
export const knownCarrier = (name: string): SimCarrier | "other" | undefined => {
  const key = carrierKey(name)
  if (key === "other") return "other"
  const listed = allCarriers.find((c) => carrierKey(c.name) === key)
  if (listed !== undefined) return listed
  return slugs.some((slug) => carrierKey(slug) === key) ? carrier(0, name, "", []) : undefined
}

/** The tracking link of the buyer's shipping email: a listed carrier's page, none for "other" or an old slug. */
export const trackingLinkFor = (carrierName: string, trackingCode: string): string | null => {
  const known = knownCarrier(carrierName)
  return known === undefined || known === "other" || known.trackingPage === ""
    ? null
    : known.trackingPage.replace("{n}", encodeURIComponent(trackingCode))
}
