import { MappingUploads } from "../console/MappingUploads.js"
import { type IncomingMessage, Server, type ServerResponse } from "node:http"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import type { ConsoleConfig } from "../config/ConsoleConfig.js"
import { consoleAccessOf } from "../console/ConsoleAccess.js"
import { ConsoleAuth } from "../console/ConsoleAuth.js"
import { type AttentionSettings, consoleRoutes } from "../console/ConsoleRoutes.js"
import type { OrderLinks } from "../console/OrderLinks.js"
import { CheckRoutes } from "./CheckRoutes.js"
import { ControlRoutes } from "./ControlRoutes.js"
import { HealthRoutes } from "./HealthRoutes.js"
import { MappingRoutes } from "./MappingRoutes.js"
import { MetricsRoutes, statusReportNow } from "./MetricsRoutes.js"
import { ReportRoutes } from "./ReportRoutes.js"
import { isWebhookDelivery, type WebhookListener, webhookReceiver } from "./WebhookReceiver.js"

export interface ServerOptions {
  readonly host: string
  readonly port: number
  /** The configuration file the daemon runs with (its real path): a command naming another is refused (`configRefusal`). */
  readonly configFile?: string | undefined
}

/** The header a podsync command sends with its configuration file's real path (cli/AppRuntime.ts). */
const CONFIG_HEADER = "x-podsync-config"

/**
 * Why a command's request is not for this daemon: it names another configuration file, so what the
 * daemon would do or answer (its stores, its mapping files) is not what the command was asked about.
 */
export const configRefusal = (own: string, theirs: string, address: string) =>
  `the podsync daemon on ${address} runs with ${own}, not ${theirs}: run the command with --config ${own}, ` +
  `or stop that daemon first (a daemon of ${theirs} needs a server.port of its own)`

/** The web console's settings (absent: not served). */
export interface ConsoleOptions {
  readonly config: ConsoleConfig
  readonly attention: AttentionSettings
  /** "Open at the store / at the POD service" links of an order. */
  readonly links?: OrderLinks
}

const ConsoleLive = (host: string, options: ConsoleOptions | undefined) => {
  const access = options === undefined ? { _tag: "Off" as const, why: "not configured" } : consoleAccessOf(host, options.config)
  return ConsoleAuth.Default({ access, sessionSecret: options?.config.auth?.sessionSecret }).pipe(
    Layer.tap(() =>
      access._tag === "Off"
        ? Effect.logInfo(`the console is off: ${access.why}`)
        : Effect.logInfo(`the console is at /console (${access._tag === "Login" ? "login required" : "this machine only, no login"})`)
    )
  )
}

/**
 * node's HTTP server, whose webhook deliveries (`POST /webhooks/...`) go straight to the webhook
 * receiver and every other request to the listeners added for "request" (the Effect router's
 * handler): the receiver answers thousands of deliveries a second without a fiber each.
 */
export class DaemonHttpServer extends Server {
  constructor(private readonly webhooks: WebhookListener, private readonly options?: ServerOptions) {
    super({ requestTimeout: 30_000 })
  }

  override emit(event: string, ...args: Array<unknown>): boolean {
    const [request, response] = args
    if (event === "request" && isWebhookDelivery(request as IncomingMessage)) {
      this.webhooks(request as IncomingMessage, response as ServerResponse)
      return true
    }
    const theirs = event === "request" ? (request as IncomingMessage).headers[CONFIG_HEADER] : undefined
    const own = this.options?.configFile
    if (typeof theirs === "string" && own !== undefined && theirs !== own) {
      const body = JSON.stringify({ error: configRefusal(own, theirs, `${this.options?.host}:${this.options?.port}`) })
      ;(response as ServerResponse).writeHead(409, { "content-type": "application/json" }).end(body)
      return true
    }
    return super.emit(event, ...args)
  }
}

/** The daemon's HTTP server. Closing it (on shutdown) stops new requests and waits for those in flight. */
export const HttpServerLive = (options: ServerOptions, console?: ConsoleOptions) =>
  Layer.unwrapEffect(Effect.map(webhookReceiver, (webhooks) =>
    HttpRouter.empty.pipe(
      HttpRouter.concat(HealthRoutes),
      HttpRouter.concat(MappingRoutes),
      HttpRouter.concat(ControlRoutes),
      HttpRouter.concat(CheckRoutes),
      HttpRouter.concat(MetricsRoutes),
      HttpRouter.concat(ReportRoutes),
      HttpRouter.concat(consoleRoutes(
        statusReportNow,
        console?.attention ?? { notCheckedOutAfterHours: 24, noDraftAfterMinutes: 30 },
        console?.links ?? (() => [])
      )),
      HttpServer.serve(),
      HttpServer.withLogAddress,
      Layer.provide(NodeHttpServer.layer(() => new DaemonHttpServer(webhooks, options), { host: options.host, port: options.port })),
      Layer.provide(ConsoleLive(options.host, console)),
      Layer.provide(MappingUploads.Default),
      Layer.tapErrorCause((cause) => Effect.logError("the HTTP server could not start", cause))
    )))
