/**
 * Where a person opens an order outside podsync, pure: its page in the store's admin, and its page
 * at the POD service. Built once from the configuration; an order a link cannot be made for (a
 * JSON feed has no admin page, no POD page address configured) has none.
 */
import { Option } from "effect"
import type { StoreConfig } from "../config/StoreConfig.js"
import * as ReferenceId from "../domain/ReferenceId.js"

export interface OrderLink {
  readonly label: string
  readonly href: string
}

export type OrderLinks = (order: {
  readonly referenceId: string
  readonly podDraftId: string | null
  readonly podOrderId: string | null
}) => ReadonlyArray<OrderLink>

const trimmed = (url: string) => url.replace(/\/+$/, "")

/** The store admin's page of an order, by platform. */
const storePage = (store: StoreConfig, storeOrderId: string): string | null => {
  const id = encodeURIComponent(storeOrderId)
  switch (store.platform) {
    case "shopify":
      return store.shopify === undefined ? null : `https://${store.shopify.shop}/admin/orders/${id}`
    case "woocommerce":
      // The classic edit screen; with HPOS on, WooCommerce redirects it to the orders screen.
      return store.woocommerce === undefined ? null : `${trimmed(store.woocommerce.url)}/wp-admin/post.php?post=${id}&action=edit`
    case "etsy":
      return `https://www.etsy.com/your/orders/sold?order_id=${id}`
    case "jsonfeed":
      return null
  }
}

/** `podOrderPage`: console.podOrderUrl, a URL with `{id}` where the POD order (or draft) id goes. */
export const orderLinksOf = (
  stores: ReadonlyArray<StoreConfig>,
  podOrderPage: string | undefined,
  storeNames: Readonly<Record<string, string>> = {}
): OrderLinks => {
  const byKey = new Map(stores.map((s) => [s.key, s]))
  return (order) => {
    const links: Array<OrderLink> = []
    const parts = Option.getOrUndefined(ReferenceId.parse(order.referenceId))
    const store = parts === undefined ? undefined : byKey.get(parts.storeKey)
    const atStore = store === undefined || parts === undefined ? null : storePage(store, parts.storeOrderId)
    if (atStore !== null && store !== undefined) {
      links.push({ label: `open at ${storeNames[store.key]?.trim() || store.key}`, href: atStore })
    }
    const podId = order.podOrderId ?? order.podDraftId
    if (podOrderPage !== undefined && podOrderPage !== "" && podId !== null) {
      links.push({ label: "open at the POD service", href: podOrderPage.replaceAll("{id}", encodeURIComponent(podId)) })
    }
    return links
  }
}
