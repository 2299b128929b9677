import { createServer } from "node:http"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ControlRoutes } from "./ControlRoutes.js"
import { HealthRoutes } from "./HealthRoutes.js"
import { MappingRoutes } from "./MappingRoutes.js"
import { MetricsRoutes } from "./MetricsRoutes.js"
import { ReportRoutes } from "./ReportRoutes.js"
import { WebhookRoutes } from "./WebhookRoutes.js"

export interface ServerOptions {
  readonly host: string
  readonly port: number
}

/** The daemon's HTTP server. Closing it (on shutdown) stops new requests and waits for those in flight. */
export const HttpServerLive = (options: ServerOptions) =>
  HttpRouter.empty.pipe(
    HttpRouter.concat(HealthRoutes),
    HttpRouter.concat(WebhookRoutes),
    HttpRouter.concat(MappingRoutes),
    HttpRouter.concat(ControlRoutes),
    HttpRouter.concat(MetricsRoutes),
    HttpRouter.concat(ReportRoutes),
    HttpServer.serve(),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(() => createServer({ requestTimeout: 30_000 }), { host: options.host, port: options.port })),
    Layer.tapErrorCause((cause) => Effect.logError("the HTTP server could not start", cause))
  )
