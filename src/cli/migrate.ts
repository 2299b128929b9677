import * as Command from "@effect/cli/Command"
import { Console, Effect } from "effect"
import { migrateToLatest } from "../db/Migrator.js"
import { configCommand } from "./AppRuntime.js"
import { dbLayer } from "../app/DatabaseLive.js"

/** `podsync migrate`: brings the database schema up to date (start does this too). */
export const migrateCommand = configCommand("migrate", (app) =>
  Effect.gen(function*() {
    const applied = yield* migrateToLatest
    yield* Console.log(applied.length === 0 ? "The database is up to date." : `Applied: ${applied.join(", ")}`)
  }).pipe(Effect.provide(dbLayer(app)))).pipe(Command.withDescription("Apply database migrations"))
