/**
 * Answers no Shopify would give but a proxy in front of it might: the
 * connector reports them as typed errors, keeping the raw body, and marks
 * writes as ambiguous.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { draftedAnnotation } from "../../../src/domain/StoreTypes.js"
import { isAmbiguous } from "../../../src/stores/StoreErrors.js"
import { connectTo } from "./harness.js"

const proxyPage = "<html><body><h1>502 Bad Gateway</h1>upstream timed out</body></html>"

/** An HTTP server that answers every request 200 with an HTML page. */
const brokenProxy = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ url: string; close: () => void }>((resolve) => {
        const server = createServer((req, res) => {
          req.resume()
          req.on("end", () => res.writeHead(200, { "Content-Type": "text/html" }).end(proxyPage))
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() })
        })
      })
  ),
  (proxy) => Effect.sync(proxy.close)
)

describe("Shopify answers that cannot be read", () => {
  it.scopedLive("are typed errors carrying the raw body; a write is marked ambiguous, a read is not", () =>
    Effect.gen(function*() {
      const proxy = yield* brokenProxy
      const connector = yield* connectTo(
        {
          url: proxy.url,
          graphqlUrl: `${proxy.url}/admin/api/2026-10/graphql.json`,
          shop: "acme.myshopify.com",
          accessToken: "shpat_sim_token",
          apiVersion: "2026-10",
          webhookSecret: "s",
          close: () => Promise.resolve()
        },
        { accessToken: Redacted.make("shpat_sim_token") }
      )
      const readError = yield* Effect.flip(connector.getOrder("1"))
      expect(readError).toMatchObject({ _tag: "StoreResponseError", operation: "order", status: 200, body: proxyPage, ambiguous: false })
      expect(isAmbiguous(readError)).toBe(false)

      const writeError = yield* Effect.flip(connector.annotate("1", draftedAnnotation("dft_1")))
      expect(writeError).toMatchObject({ _tag: "StoreResponseError", operation: "annotate", body: proxyPage, ambiguous: true })
      expect(isAmbiguous(writeError)).toBe(true)
      expect(writeError.message).toContain("read the store back before retrying")
    }))
})
