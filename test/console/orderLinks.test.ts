import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { StoreConfig } from "../../src/config/StoreConfig.js"
import { parseConfig } from "../../src/config/loadConfig.js"
import { renderFragment } from "../../src/console/Html.js"
import { orderLinksOf } from "../../src/console/OrderLinks.js"
import { queueContent } from "../../src/console/QueueView.js"

const store = (key: string, platform: string, section: Record<string, unknown>) =>
  Schema.decodeUnknownSync(StoreConfig)({ key, platform, podStoreId: "store-1", mappings: "m.csv", [platform]: section })

const stores = [
  store("acme-shopify", "shopify", { shop: "acme.myshopify.com", accessToken: "t", webhookSecret: "w" }),
  store("acme-woo", "woocommerce", { url: "https://shop.acme.example/", consumerKey: "k", consumerSecret: "s", webhookSecret: "w" }),
  store("acme-etsy", "etsy", { shopId: "123", keystring: "k", sharedSecret: "s", refreshToken: "r" }),
  store("acme-feed", "jsonfeed", { baseUrl: "https://feed.acme.example", token: "t", webhookSecret: "w" })
]

describe("open an order at the store and at the POD service", () => {
  const links = orderLinksOf(stores, "https://seller.pod.example/orders/{id}")

  it("links each platform's admin page of the order, and the POD page of its order or draft", () => {
    expect(links({ referenceId: "acme-shopify:5551001", podDraftId: "d-1", podOrderId: null })).toEqual([
      { label: "open at acme-shopify", href: "https://acme.myshopify.com/admin/orders/5551001" },
      { label: "open at the POD service", href: "https://seller.pod.example/orders/d-1" }
    ])
    expect(links({ referenceId: "acme-woo:88", podDraftId: "d-2", podOrderId: "o-2" }).map((l) => l.href)).toEqual([
      "https://shop.acme.example/wp-admin/post.php?post=88&action=edit",
      "https://seller.pod.example/orders/o-2"
    ])
    expect(links({ referenceId: "acme-etsy:3141", podDraftId: null, podOrderId: null }).map((l) => l.href)).toEqual([
      "https://www.etsy.com/your/orders/sold?order_id=3141"
    ])
    // A JSON feed has no admin page; no POD page address configured: no POD link.
    expect(orderLinksOf(stores, undefined)({ referenceId: "acme-feed:A-1", podDraftId: "d-3", podOrderId: null })).toEqual([])
  })

  it("shows them on the queue's rows, opening in a new tab that is told nothing of the console", () => {
    const page = renderFragment(queueContent({
      orders: [{
        id: 1,
        storeKey: "acme-shopify",
        referenceId: "acme-shopify:5551001",
        name: "#1001",
        state: "failed",
        heldReason: null,
        message: "HTTP 500",
        podDraftId: null,
        podOrderId: null,
        updatedAt: new Date("2026-11-25T10:00:00Z"),
        waitingSince: new Date("2026-11-25T10:00:00Z")
      }],
      storeKeys: ["acme-shopify"],
      reasonKeys: ["failed"],
      filter: {},
      nowMs: Date.parse("2026-11-25T12:00:00Z"),
      csrfToken: "csrf",
      actionKey: "key",
      outcomes: [],
      limit: 200,
      links
    }))
    expect(page).toContain(
      `<a href="https://acme.myshopify.com/admin/orders/5551001" target="_blank" rel="noopener noreferrer">open at acme-shopify ↗</a>`
    )
  })

  it("takes console.podOrderUrl only with {id} in it", () => {
    const config = (url: string) =>
      parseConfig(
        `pod: { baseUrl: https://pod.example.com/x, clientKey: k, clientSecret: s }\nstores: []\nconsole: { podOrderUrl: "${url}" }`,
        "t.yaml",
        {}
      )
    expect(Either.isRight(config("https://seller.pod.example/orders/{id}"))).toBe(true)
    expect(Either.isRight(config(""))).toBe(true)
    const bad = config("https://seller.pod.example/orders")
    expect(Either.isLeft(bad) && bad.left.issues.map((i) => i.path)).toEqual(["console.podOrderUrl"])
  })
})
