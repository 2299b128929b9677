import { missingParams, ok, orderRoutes, wooError, type ApiContext, type ApiRequest, type Route } from "./api.js"
import { trackingItems, type StoredOrder, type TrackingItem } from "./model.js"
import { trackingView } from "./views.js"

/**
 * The Shipment Tracking extension's REST API (`wc-shipment-tracking/v3`), present only while the
 * extension is switched on (otherwise WordPress answers 404 `rest_no_route`, as on a site without it).
 * Items live in the order meta `_wc_shipment_tracking_items`; adding or deleting one saves the order.
 * A predefined `tracking_provider` is stored as its slug (`sanitize_title`) and shown by the provider's
 * name, its link from the provider's template (a `tracking_link` sent with it is ignored; a slug no
 * provider has shows neither name nor link); any other carrier goes as `custom_tracking_provider` +
 * `custom_tracking_link`, the link kept as given (an empty one shows the number without a link).
 *
 * The provider list is per order, as the extension registers it:
 * `GET /wc-shipment-tracking/v3/orders/<id>/shipment-trackings/providers` (public, any order id).
 * There is no `/shipment-trackings/providers` route: it answers 404 `rest_no_route`
 * (store-apis.md §0).
 */

/** A part of the extension's predefined providers, grouped by country as the providers route returns them. */
export const trackingProviders: Record<string, Record<string, string>> = {
  Australia: {
    "Australia Post": "https://auspost.com.au/mypost/track/#/details/%1$s",
    "Fastway Couriers": "https://www.fastway.com.au/tools/track/?l=%1$s"
  },
  Canada: { "Canada Post": "https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=%1$s" },
  Germany: {
    "DHL Intraship (DE)": "https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?lang=de&idc=%1$s",
    Hermes: "https://www.myhermes.de/empfangen/sendungsverfolgung/sendungsinformation/#%1$s",
    "Deutsche Post DHL": "https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?lang=de&idc=%1$s",
    "UPS Germany":
      "https://wwwapps.ups.com/WebTracking/processInputRequest?sort_by=status&tracknums_displayed=1&TypeOfInquiryNumber=T&loc=de_DE&InquiryNumber1=%1$s",
    "DPD.de": "https://tracking.dpd.de/parcelstatus?query=%1$s&locale=en_DE"
  },
  "United Kingdom": {
    DHL: "https://www.dhl.com/content/g0/en/express/tracking.shtml?brand=DHL&AWB=%1$s",
    "DPD.co.uk": "https://www.dpd.co.uk/apps/tracking/?reference=%1$s#results",
    ParcelForce: "https://www.parcelforce.com/track-trace?trackNumber=%1$s",
    "Royal Mail": "https://www.royalmail.com/track-your-item#/tracking-results/%1$s",
    Evri: "https://www.evri.com/track/parcel/%1$s"
  },
  "United States": {
    Fedex: "https://www.fedex.com/apps/fedextrack/?action=track&action=track&tracknumbers=%1$s",
    OnTrac: "https://www.ontrac.com/tracking/?number=%1$s",
    UPS: "https://www.ups.com/track?loc=en_US&tracknum=%1$s",
    USPS: "https://tools.usps.com/go/TrackConfirmAction_input?qtc_tLabels1=%1$s",
    "DHL US": "https://www.logistics.dhl/us-en/home/tracking/tracking-ecommerce.html?tracking-id=%1$s"
  }
}

/** WordPress's `sanitize_title`, as far as provider names need it: the extension keys providers by it. */
export const providerSlug = (name: string): string => name.trim().toLowerCase().replace(/[^a-z0-9 _-]+/g, "").replace(/[\s_]+/g, "-")

/** The predefined provider a stored slug names: its display name and link template. */
const providerOf = (slug: string): { readonly name: string; readonly template: string } | undefined => {
  for (const group of Object.values(trackingProviders)) {
    for (const [name, template] of Object.entries(group)) if (providerSlug(name) === slug) return { name, template }
  }
  return undefined
}

/** What the buyer sees of an item: a custom provider and its link as given; a predefined provider by its name, link from its template. */
export interface FormattedTracking {
  readonly provider: string
  readonly link: string
}

/**
 * `get_formatted_tracking_item`: a custom provider's name and link as given (an empty link shows none);
 * a predefined one's display name and its template filled in; a slug no provider has shows neither.
 */
export const formatTracking = (item: TrackingItem): FormattedTracking => {
  if (item.custom_tracking_provider !== "") return { provider: item.custom_tracking_provider, link: item.custom_tracking_link }
  const provider = providerOf(item.tracking_provider)
  return provider === undefined
    ? { provider: "", link: "" }
    : { provider: provider.name, link: provider.template.replace("%1$s", item.tracking_number) }
}

const invalidOrder = wooError(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.")

/** `date_shipped` as the extension reads it: a date string or a Unix timestamp; default now. */
const shippedSeconds = (value: unknown, now: number): number | null => {
  if (value === undefined || value === null || value === "") return Math.floor(now / 1000)
  if (typeof value === "number" || (typeof value === "string" && /^\d{9,11}$/.test(value))) return Number(value)
  if (typeof value === "string") {
    const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
    return Number.isNaN(parsed) ? null : Math.floor(parsed / 1000)
  }
  return null
}

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "")

const createTracking = (ctx: ApiContext, order: StoredOrder, request: ApiRequest) => {
  const number = text(request.body.tracking_number)
  if (number === "") return missingParams(["tracking_number"])
  const custom = text(request.body.custom_tracking_provider)
  const provider = text(request.body.tracking_provider)
  const shipped = shippedSeconds(request.body.date_shipped, ctx.state.now())
  if (shipped === null) return wooError(400, "woocommerce_rest_shipment_tracking_invalid_date", "Invalid date shipped.")
  const item = ctx.state.addTracking(order, {
    tracking_provider: custom === "" ? providerSlug(provider) : "",
    custom_tracking_provider: custom,
    custom_tracking_link: custom === "" ? "" : text(request.body.custom_tracking_link),
    tracking_number: number,
    date_shipped: String(shipped)
  })
  const location = `${ctx.view.siteUrl}/wp-json/wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings/${item.tracking_id}`
  return ok(trackingView(ctx.view, order, item, formatTracking(item)), 201, { Location: location })
}

export const trackingRoute = (ctx: ApiContext, method: string, path: string): Route | null => {
  if (!path.startsWith("/wc-shipment-tracking/v3/")) return null
  // Without the extension its routes do not exist: WordPress answers 404 rest_no_route.
  if (!ctx.state.shipmentTracking) return null
  let m = /^\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings\/providers$/.exec(path)
  // Registered without a permission check: it answers without credentials.
  if (m) {
    return method === "GET"
      ? { operation: "trackings.providers", access: "list", public: true, handle: () => ok(trackingProviders) }
      : null
  }
  m = /^\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings$/.exec(path)
  if (m) {
    const route = orderRoutes(ctx, m[1]!, invalidOrder)
    const views = (o: StoredOrder) => trackingItems(o).map((t) => trackingView(ctx.view, o, t, formatTracking(t)))
    if (method === "GET") return route("trackings.list", "list", (o) => ok(views(o)))
    if (method === "POST") return route("trackings.create", "create", (o, r) => createTracking(ctx, o, r))
    return null
  }
  m = /^\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings\/([A-Za-z0-9]+)$/.exec(path)
  if (m) {
    const [route, trackingId] = [orderRoutes(ctx, m[1]!, invalidOrder), m[2]!]
    const invalidTracking = wooError(404, "woocommerce_rest_order_shipment_tracking_invalid_id", "Invalid shipment tracking ID.")
    const answer = (o: StoredOrder, item: TrackingItem | undefined) =>
      item === undefined ? invalidTracking : ok(trackingView(ctx.view, o, item, formatTracking(item)))
    const find = (o: StoredOrder) => trackingItems(o).find((t) => t.tracking_id === trackingId)
    if (method === "GET") return route("trackings.get", "view", (o) => answer(o, find(o)))
    if (method === "DELETE") return route("trackings.delete", "delete", (o) => answer(o, ctx.state.deleteTracking(o, trackingId)))
  }
  return null
}
