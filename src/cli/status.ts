import { Command } from "@effect/cli"
import { Console, Effect, Schema } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { askDaemon, configOption, dbLayer, withConfig } from "./AppRuntime.js"

const StatusBody = Schema.Struct({
  orders: Schema.Array(Schema.Struct({ storeKey: Schema.String, state: Schema.String, count: Schema.Number })),
  held: Schema.Array(Schema.Struct({ storeKey: Schema.String, reason: Schema.String, count: Schema.Number }))
})
type StatusBody = typeof StatusBody.Type

const fromDatabase = (config: AppConfig) =>
  Effect.gen(function*() {
    const repo = yield* StatusRepo
    return { orders: yield* repo.ordersByStoreAndState, held: yield* repo.heldByReason }
  }).pipe(Effect.provide(StatusRepo.Default), Effect.provide(dbLayer(config)))

// A daemon on the embedded database holds it alone: ask it over HTTP first.
const fromDaemon = (config: AppConfig) => askDaemon(config, "GET", "/status", StatusBody)

const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? []
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  ").trimEnd()).join("\n")
}

export const renderStatus = (status: StatusBody, source: string) => {
  const lines = [`Orders by store and state (${source}):`]
  lines.push(status.orders.length === 0
    ? "  no orders yet"
    : table([["store", "state", "orders"], ...status.orders.map((o) => [o.storeKey, o.state, String(o.count)])]))
  if (status.held.length > 0) {
    lines.push("", "Held orders need a person (podsync explain <store key>:<order id> tells the story):")
    lines.push(table([["store", "reason", "orders"], ...status.held.map((h) => [h.storeKey, h.reason, String(h.count)])]))
  }
  return lines.join("\n")
}

/** `podsync status`: orders per state per store, and held orders with their reasons. */
export const statusCommand = Command.make("status", { config: configOption }, ({ config }) =>
  withConfig(config, (app) =>
    Effect.gen(function*() {
      const status = app.database.url
        ? yield* Effect.map(fromDatabase(app), (s) => ({ status: s, source: "database" }))
        : yield* fromDaemon(app).pipe(
          Effect.map((s) => ({ status: s, source: "running daemon" })),
          Effect.orElse(() => Effect.map(fromDatabase(app), (s) => ({ status: s, source: "embedded database" })))
        )
      yield* Console.log(renderStatus(status.status, status.source))
    }))
).pipe(Command.withDescription("Show orders by state and store"))
