/** podsync's webhook receiver served for a test, over the services it gives them, as the daemon's server serves it. */
import { type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Layer } from "effect"
import { DaemonHttpServer } from "../../src/http/HttpServerLive.js"
import { webhookReceiver } from "../../src/http/WebhookReceiver.js"

/**
 * The receiver on 127.0.0.1:0 over `services`, for the test's scope; answers the server's base URL.
 * Anything but a webhook delivery is answered 404 (the daemon's router is not there).
 */
export const serveWebhookReceiver = <ROut, E, RIn>(services: Layer.Layer<ROut, E, RIn>) =>
  Effect.gen(function*() {
    const listener = yield* webhookReceiver.pipe(Effect.provide(services), Effect.orDie)
    const server = yield* Effect.acquireRelease(
      Effect.async<Server>((resume) => {
        const server = new DaemonHttpServer(listener)
        server.on("request", (_request, response) => response.writeHead(404).end())
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
    )
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
