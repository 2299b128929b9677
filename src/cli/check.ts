import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { resolveConfigPath } from "../config/loadConfig.js"
import { configOption, loadAppConfig } from "./AppRuntime.js"

/** `podsync check`: validates the configuration and prints OK, or every error with its path. */
export const checkCommand = Command.make("check", { config: configOption }, ({ config }) =>
  Effect.gen(function*() {
    const file = resolveConfigPath(config)
    const app = yield* loadAppConfig(config)
    const stores = app.stores.map((s) => `${s.key} (${s.platform})`).join(", ") || "none"
    const database = app.database.url ? "PostgreSQL" : `embedded, under ${app.dataDir}`
    yield* Console.log(`OK: ${file} is valid. Stores: ${stores}. Database: ${database}.`)
  })
).pipe(Command.withDescription("Validate the configuration file"))
