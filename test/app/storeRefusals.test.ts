/**
 * Which store answers of 401/403 the daemon's health takes as refused credentials: a store request's
 * outcome goes through the store's HTTP client as the daemon wires it (StoresLive), against the
 * simulators. A 403 on one Etsy receipt's shipment, and WooCommerce's 401 to a header the host
 * stripped (the connector then sends the key in the query string), refuse one request, not the
 * credentials: no "credentials refused" alert, no error in the log. A wrong key still is one.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Redacted } from "effect"
import { AlertConditions } from "../../src/alerts/AlertConditions.js"
import { reportStoreHealth } from "../../src/app/DependencyReports.js"
import { Db } from "../../src/db/Db.js"
import { DependencyHealth } from "../../src/observability/DependencyHealth.js"
import { AlertsRepo } from "../../src/repos/AlertsRepo.js"
import { startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { startWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { makeEtsyConnector } from "../../src/stores/etsy/EtsyConnector.js"
import { etsyCredentialRefusal } from "../../src/stores/etsy/EtsyHttp.js"
import type { CredentialRefusal, StoreConnector } from "../../src/stores/StoreConnector.js"
import { makeWooCommerceConnector } from "../../src/stores/woocommerce/WooCommerceConnector.js"
import { wooCredentialRefusal } from "../../src/stores/woocommerce/WooHttp.js"
import { pgliteDatabase } from "../support/database.js"

const scoped = <S extends { close: () => Promise<void> }>(start: () => Promise<S>) =>
  Effect.acquireRelease(Effect.promise(start), (s) => Effect.promise(() => s.close()))

/** The daemon's health and alert conditions on a fresh PGlite, and every log line. */
const scene = Effect.gen(function*() {
  const lines: Array<string> = []
  const context = yield* Layer.build(
    Layer.mergeAll(DependencyHealth.Default, AlertConditions.Default, AlertsRepo.Default).pipe(Layer.provideMerge(pgliteDatabase().layer))
  )
  const http = Context.get(yield* Layer.build(NodeHttpClient.layerUndici), HttpClient.HttpClient)
  /** A connector whose HTTP client reports to the health, as StoresLive wires it. */
  const connect = <C>(
    make: (config: C) => Effect.Effect<StoreConnector, never, HttpClient.HttpClient>,
    config: C,
    storeKey: string,
    refusal: CredentialRefusal
  ) =>
    Effect.flatMap(
      reportStoreHealth(storeKey, refusal),
      (client) => make(config).pipe(Effect.provideService(HttpClient.HttpClient, client))
    ).pipe(
      Effect.provide(context),
      Effect.provideService(HttpClient.HttpClient, http)
    )
  const outcome = Effect.gen(function*() {
    yield* Context.get(context, AlertConditions).settled
    const rows = yield* Effect.flatMap(Db, (db) => db.use((k) => k.selectFrom("alert_outbox").select(["kind", "store_key"]).execute()))
    return {
      alerts: rows.map((r) => `${r.kind}:${r.store_key}`),
      refusals: (yield* Context.get(context, DependencyHealth).refusals).length
    }
  }).pipe(Effect.provide(context))
  const logged = <A, E>(effect: Effect.Effect<A, E>) =>
    effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push([message].flat().join(" ")))))
    )
  return { connect, outcome, logged, lines }
})

describe("store answers the health takes as refused credentials", () => {
  it.scopedLive("WooCommerce behind a host that strips the header: no refusal; a wrong secret: one", () =>
    Effect.gen(function*() {
      const { connect, outcome, logged, lines } = yield* scene
      const woo = yield* scoped(() => startWooCommerceSimulator({ stripsAuthorizationHeader: true }))
      const config = {
        storeKey: "acme-woo",
        url: woo.url,
        consumerKey: Redacted.make(woo.consumerKey),
        consumerSecret: Redacted.make(woo.consumerSecret),
        webhookSecret: Redacted.make(woo.webhookSecret),
        minRequestIntervalMs: 0
      }
      const connector = yield* connect(makeWooCommerceConnector, config, "acme-woo", wooCredentialRefusal("auto"))
      yield* logged(connector.getOrder("4021"))
      expect(yield* outcome).toEqual({ alerts: [], refusals: 0 })
      expect(lines.filter((l) => l.includes("refuses podsync's credentials"))).toEqual([])

      const wrong = yield* connect(
        makeWooCommerceConnector,
        { ...config, storeKey: "acme-woo-2", consumerSecret: Redacted.make("cs_wrong") },
        "acme-woo-2",
        wooCredentialRefusal("auto")
      )
      yield* logged(Effect.flip(wrong.getOrder("4021")))
      expect(yield* outcome).toEqual({ alerts: ["credentials.refused:acme-woo-2"], refusals: 1 })
    }))

  it.scopedLive("Etsy refusing one receipt's shipment: that push rejected, the credentials not refused", () =>
    Effect.gen(function*() {
      const { connect, outcome } = yield* scene
      const etsy = yield* scoped(() => startEtsySimulator())
      const connector = yield* connect(
        makeEtsyConnector,
        {
          storeKey: "acme-etsy",
          shopId: String(etsy.shopId),
          keystring: Redacted.make(etsy.keystring),
          sharedSecret: Redacted.make(etsy.sharedSecret),
          refreshToken: Redacted.make(etsy.refreshToken),
          baseUrl: etsy.url
        },
        "acme-etsy",
        etsyCredentialRefusal
      )
      const receipt = yield* Effect.promise(async () => {
        const answer = await fetch(`${etsy.url}/__sim/receipts`, {
          method: "POST",
          body: "{}",
          headers: { "content-type": "application/json" }
        })
        return (await answer.json()) as { receipt_id: number; transactions: Array<{ transaction_id: number }> }
      })
      yield* Effect.promise(() =>
        fetch(`${etsy.url}/__sim/receipts/${receipt.receipt_id}/refuse-shipments`, { method: "POST", body: "{}" })
      )
      const outcomeOfPush = yield* connector.pushFulfillment({
        storeOrderId: String(receipt.receipt_id),
        lines: [{ lineId: String(receipt.transactions[0]!.transaction_id), quantity: 1 }],
        tracking: { company: "USPS", number: "9400100000000000000009" }
      })
      expect(outcomeOfPush).toMatchObject({ _tag: "Rejected", reason: "shipment_refused" })
      expect(yield* outcome).toEqual({ alerts: [], refusals: 0 })
    }))
})
