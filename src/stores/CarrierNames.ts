/**
 * Carrier names as the POD service writes them ("USPS", "FedEx", "Royal Mail") matched against the
 * names a store platform knows (Etsy's `getShippingCarriers`, the WooCommerce Shipment Tracking
 * extension's providers), so the store builds the buyer's tracking link itself; and a tracking link
 * for the common carriers whose public tracking page takes the number in its address, for where a
 * platform must be given one.
 *
 * A name matches when it is the same with case, spaces and punctuation aside ("FedEx" and "Fedex",
 * "DHL eCommerce" and "DHL E-Commerce"), else through a group of names known to mean the same carrier
 * ("Hermes UK" and "Evri", "Deutsche Post DHL" and "DHL Paket"). Nothing is guessed beyond that: a
 * plain "DHL" is not taken for DHL Express or DHL eCommerce.
 */

/** The name with case, spaces and punctuation aside: "DHL E-Commerce" → "dhlecommerce". */
export const carrierKey = (name: string): string => name.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, "")

/** Names (as keys) that mean the same carrier. */
const aliasGroups: ReadonlyArray<ReadonlyArray<string>> = [
  ["usps", "unitedstatespostalservice", "uspostalservice", "usmail"],
  ["ups", "unitedparcelservice", "upsground", "upsgermany"],
  ["fedex", "federalexpress", "fedexground", "fedexhomedelivery"],
  ["dhlexpress", "dhlworldwideexpress"],
  ["dhlecommerce", "dhlecommercesolutions", "dhlglobalmail", "dhlus"],
  ["dhlpaket", "deutschepostdhl", "dhlintrashipde", "dhlde", "dhlparcel"],
  ["deutschepost", "deutschepostag"],
  ["royalmail", "royalmailgroup"],
  ["evri", "hermesuk", "myhermes"],
  ["parcelforce", "parcelforceworldwide"],
  ["canadapost", "postescanada", "canadapostpostescanada"],
  ["australiapost", "auspost"],
  ["dpd", "dpdde", "dpdcouk", "dpduk", "dpdgroup"],
  ["laposte", "laposteletter"],
  ["colissimo", "lapostecolissimo"],
  ["postnl", "postnederland"],
  ["japanpost", "nipponpost"],
  ["ontrac", "ontraclogistics"]
]

const groupOf = (key: string): ReadonlyArray<string> | undefined => aliasGroups.find((group) => group.includes(key))

/**
 * The name of `known` that means the carrier `company`, as `known` spells it: the same name first,
 * else one of its group; undefined when none does.
 */
export const matchCarrier = (company: string, known: Iterable<string>): string | undefined => {
  const wanted = carrierKey(company)
  if (wanted === "") return undefined
  const names = [...known]
  const same = names.find((name) => carrierKey(name) === wanted)
  if (same !== undefined) return same
  const group = groupOf(wanted)
  return group === undefined ? undefined : names.find((name) => group.includes(carrierKey(name)))
}

/** Public tracking pages that take the number in their address, by the first key of the carrier's group. */
const trackingPages: Readonly<Record<string, (number: string) => string>> = {
  usps: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`,
  ups: (n) => `https://www.ups.com/track?tracknum=${n}`,
  fedex: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`,
  dhlexpress: (n) => `https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=${n}`,
  dhlecommerce: (n) => `https://webtrack.dhlecommerce.com/?trackingnumber=${n}`,
  dhlpaket: (n) => `https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?idc=${n}`,
  royalmail: (n) => `https://www.royalmail.com/track-your-item#/tracking-results/${n}`,
  evri: (n) => `https://www.evri.com/track/parcel/${n}`,
  canadapost: (n) => `https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=${n}`,
  australiapost: (n) => `https://auspost.com.au/mypost/track/#/details/${n}`,
  postnl: (n) => `https://jouw.postnl.nl/track-and-trace/${n}`
}

/** A tracking link for the package, when the carrier is one whose tracking page takes the number in its address. */
export const trackingUrlOf = (company: string, number: string): string | undefined => {
  const key = carrierKey(company)
  const page = trackingPages[groupOf(key)?.[0] ?? key]
  return page === undefined ? undefined : page(encodeURIComponent(number.replace(/\s+/g, "")))
}
