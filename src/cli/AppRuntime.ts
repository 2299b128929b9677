import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as fs from "node:fs"
import * as path from "node:path"
import { Data, Duration, Effect, FiberRef, Layer, Logger, LogLevel, Option, Schema } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { loadConfig, resolveConfigPath } from "../config/loadConfig.js"
import { unknownStoreMessage } from "./UsageMistake.js"

/** `--config FILE` on every command; else $PODSYNC_CONFIG, else config/podsync.yaml. */
export const configOption = Options.text("config").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("configuration file (default: $PODSYNC_CONFIG, else config/podsync.yaml)"),
  Options.optional
)

/** A failure the user can act on: printed as one message, exit code 1, no stack trace. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly message: string }> {}

export const loadAppConfig = (flag: Option.Option<string>) => loadConfig(resolveConfigPath(flag))

const levels: Record<AppConfig["log"]["level"], LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

const isLevelName = (name: string): name is AppConfig["log"]["level"] => name in levels

/**
 * Log lines on stderr (stdout stays for command output), at the level of $PODSYNC_LOG_LEVEL (or
 * --log-level), else the config's: readable lines on a terminal, JSON lines otherwise (a file, a
 * pipe, a log collector), unless `log.format` says which.
 */
export const loggerLayer = (configured: AppConfig["log"]["level"], format: AppConfig["log"]["format"] = "auto") => {
  const fromEnv = process.env.PODSYNC_LOG_LEVEL
  const level = fromEnv !== undefined && isLevelName(fromEnv) ? fromEnv : configured
  const readable = format === "text" || (format === "auto" && process.stderr.isTTY === true)
  return Layer.merge(
    Logger.replace(
      Logger.defaultLogger,
      readable ? Logger.prettyLogger({ stderr: true, colors: "auto", mode: "tty" }) : Logger.withConsoleError(Logger.jsonLogger)
    ),
    Logger.minimumLogLevel(levels[level])
  )
}

/** The configuration file the command runs with, as named (`--config`, $PODSYNC_CONFIG or the default); set by `withConfig`. */
export const currentConfigFile = FiberRef.unsafeMake<string | undefined>(undefined)

/** A configuration file's one name whatever path reached it (relative, through a link): how a daemon and a command compare theirs. */
export const canonicalConfigPath = (file: string) => {
  try {
    return fs.realpathSync(file)
  } catch {
    return path.resolve(file)
  }
}

/** The header a command sends the running daemon with its configuration file; the daemon refuses one that is not its own. */
export const CONFIG_HEADER = "x-podsync-config"

/** Loads the config, then runs the command with its logger installed (and `currentConfigFile` set). */
export const withConfig = <A, E, R>(flag: Option.Option<string>, run: (config: AppConfig) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(loadAppConfig(flag), (config) =>
    Effect.provide(run(config), loggerLayer(config.log.level, config.log.format)).pipe(
      Effect.locally(currentConfigFile, resolveConfigPath(flag))
    ))

/** The configured store with this key, or a usage mistake naming the stores (and the one probably meant). */
export const storeNamed = (app: AppConfig, key: string) =>
  Effect.flatMap(FiberRef.get(currentConfigFile), (file) => {
    const store = app.stores.find((s) => s.key === key)
    return store !== undefined
      ? Effect.succeed(store)
      : Effect.fail(new UsageError({ message: unknownStoreMessage(key, app.stores.map((s) => s.key), file ?? "the configuration") }))
  })

/** Sends the command's configuration file with a request to the daemon (see `CONFIG_HEADER`). */
const withConfigHeader = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.map(
    FiberRef.get(currentConfigFile),
    (file) => (file === undefined ? request : HttpClientRequest.setHeader(request, CONFIG_HEADER, canonicalConfigPath(file)))
  )

/** A command whose one option is `--config`: `run` is given the loaded configuration (see `withConfig`). */
export const configCommand = <Name extends string, A, E, R>(name: Name, run: (config: AppConfig) => Effect.Effect<A, E, R>) =>
  Command.make(name, { config: configOption }, ({ config }) => withConfig(config, run))

/** The running daemon's HTTP address, as this machine reaches it (a wildcard listen address is reached on loopback). */
export const daemonUrl = (config: AppConfig, path: string) => {
  const host = config.server.host === "0.0.0.0" || config.server.host === "::" ? "127.0.0.1" : config.server.host
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.server.port}${path}`
}

/**
 * Asks the running daemon (its loopback address) for something: a daemon on
 * the embedded database holds it alone, so read-and-act commands go through it.
 * Fails when no daemon answers within two seconds.
 */
export const askDaemon = <A, I>(config: AppConfig, method: "GET" | "POST", path: string, schema: Schema.Schema<A, I>) => {
  const url = daemonUrl(config, path)
  return withConfigHeader(method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url)).pipe(
    Effect.flatMap(HttpClient.execute),
    Effect.flatMap(HttpClientResponse.schemaBodyJson(schema)),
    Effect.timeout("2 seconds"),
    Effect.scoped,
    Effect.provide(NodeHttpClient.layerUndici)
  )
}

/**
 * While a daemon runs on the embedded database it holds it alone: the command asks it to do the
 * work. `None` on PostgreSQL (the command shares the database) or when no daemon answers (the
 * command then opens the database itself); a refusal or an unexpected answer is a `CliFailure`.
 */
export const askEmbeddedDaemon = <A, I>(
  config: AppConfig,
  request: HttpClientRequest.HttpClientRequest,
  schema: Schema.Schema<A, I>,
  timeout: Duration.DurationInput
) =>
  Effect.gen(function*() {
    if (config.database.url !== undefined) return Option.none<A>()
    const sent = yield* Effect.flatMap(withConfigHeader(request), HttpClient.execute).pipe(Effect.option)
    if (Option.isNone(sent)) return Option.none<A>()
    const response = sent.value
    if (response.status < 200 || response.status >= 300) {
      const body = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
      const error = Option.getOrUndefined(Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ error: Schema.String })))(body))
        ?.error
      return yield* new CliFailure({ message: error ?? `the running daemon refused: ${response.status} ${body}` })
    }
    return Option.some(
      yield* HttpClientResponse.schemaBodyJson(schema)(response).pipe(
        Effect.mapError((error) => new CliFailure({ message: `the running daemon answered something unexpected: ${error.message}` }))
      )
    )
  }).pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () => new CliFailure({ message: `the running daemon did not answer within ${Duration.format(timeout)}` })
    }),
    Effect.scoped,
    Effect.provide(NodeHttpClient.layerUndici)
  )

/**
 * A mistake in what a command was given that the parser cannot see (an option's value: a period,
 * a store key, a count below its minimum): said with the command's usage, exit 2.
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}
