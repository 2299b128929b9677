/** podsync's webhook routes served for a test, over the services it gives them. */
import { createServer } from "node:http"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { WebhookRoutes } from "../../src/http/WebhookRoutes.js"

/** `WebhookRoutes` on 127.0.0.1:0 over `services`, for the test's scope; answers the server's base URL. */
export const serveWebhookRoutes = <ROut, E, RIn>(services: Layer.Layer<ROut, E, RIn>) =>
  Effect.gen(function*() {
    const server = yield* Layer.build(
      HttpRouter.empty.pipe(
        HttpRouter.concat(WebhookRoutes),
        HttpServer.serve(),
        Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 0 })),
        Layer.provide(services)
      )
    ).pipe(Effect.orDie)
    const address = Context.get(server, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
    return `http://127.0.0.1:${address.port}`
  })
