/**
 * Answers no Etsy would give but a proxy in front of it might: typed errors
 * carrying the raw body, writes marked ambiguous, reads not, and the token
 * answer never kept (it holds secrets).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { realisticReceipt } from "./fixtures.js"
import { connectTo } from "./harness.js"

const proxyPage = "<html><body><h1>502 Bad Gateway</h1>upstream timed out</body></html>"

/** Answers the token endpoint, single-receipt reads and the public reads properly, everything else 200 with an HTML page. */
const brokenProxy = (tokenBody: string) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; close: () => void }>((resolve) => {
          const server = createServer((req, res) => {
            req.resume()
            req.on("end", () => {
              if (req.url?.startsWith("/v3/public/oauth/token")) res.writeHead(200, { "content-type": "application/json" }).end(tokenBody)
              else if (req.method === "GET" && /\/receipts\/\d+$/.test(req.url ?? "")) {
                res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(realisticReceipt))
              } else if (req.method === "GET" && /\/shops\/\d+$/.test(req.url ?? "")) {
                res.writeHead(200, { "content-type": "application/json" }).end(
                  JSON.stringify({ shop_id: 48213795, shipping_from_country_iso: "GB" })
                )
              } else if (req.method === "GET" && req.url?.startsWith("/v3/application/shipping-carriers")) {
                const carriers = [{ shipping_carrier_id: 7, name: "Royal Mail", domestic_classes: [], international_classes: [] }]
                res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ count: 1, results: carriers }))
              } else res.writeHead(200, { "content-type": "text/html" }).end(proxyPage)
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() })
          })
        })
    ),
    (proxy) => Effect.sync(proxy.close)
  )

const simLike = (url: string) => ({
  url,
  shopId: 48213795,
  userId: 1,
  keystring: "k",
  sharedSecret: "s",
  refreshToken: "1.refresh",
  webhookSecret: "whsec_AA==",
  shops: [],
  close: () => Promise.resolve()
})

describe("Etsy answers that cannot be read", () => {
  it.scopedLive("are typed errors carrying the raw body; a write is marked ambiguous, a read is not", () =>
    Effect.gen(function*() {
      const proxy = yield* brokenProxy(
        JSON.stringify({ access_token: "1.live-token", token_type: "Bearer", expires_in: 3600, refresh_token: "1.refresh" })
      )
      const connector = yield* connectTo(simLike(proxy.url))
      const pullError = yield* Effect.flip(Stream.runDrain(connector.pull(null)))
      expect(pullError).toMatchObject({
        _tag: "StoreResponseError",
        operation: "getShopReceipts",
        status: 200,
        body: proxyPage,
        ambiguous: false
      })
      expect(isAmbiguous(pullError)).toBe(false)

      const writeError = yield* Effect.flip(
        connector.pushFulfillment({
          storeOrderId: "3401234567",
          lines: [{ lineId: "4012345678", quantity: 2 }],
          tracking: { company: "Royal Mail", number: "AB123456789GB" }
        })
      )
      expect(writeError).toMatchObject({ _tag: "StoreResponseError", operation: "createReceiptShipment", body: proxyPage, ambiguous: true })
      expect(isAmbiguous(writeError)).toBe(true)
      expect(writeError.message).toContain("read the store back before retrying")
    }))

  it.scopedLive("never keeps a token answer it cannot read in the error", () =>
    Effect.gen(function*() {
      const proxy = yield* brokenProxy(JSON.stringify({ access_token: "1.super-secret-token" }))
      const connector = yield* connectTo(simLike(proxy.url))
      const error = yield* Effect.flip(connector.getOrder("3401234567"))
      expect(error).toMatchObject({ _tag: "StoreResponseError", operation: "oauthToken" })
      expect(JSON.stringify(error)).not.toContain("super-secret-token")
      expect(error.message).not.toContain("super-secret-token")
    }))
})
