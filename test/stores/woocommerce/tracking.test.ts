/**
 * What the buyer gets of a package's tracking on a WooCommerce store, as the Shipment Tracking
 * extension publishes its routes (the provider list per order) and without the extension (a customer
 * note), on a host that strips the Authorization header too.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, Redacted, TestClock } from "effect"
import type { FulfillmentPush } from "../../../src/domain/StoreTypes.js"
import { simTeeLine } from "./fixtures.js"
import { admin, connectTo, type Sim, startSimulator, stats, T0 } from "./harness.js"

interface SimOrder {
  readonly id: number
  readonly status: string
  readonly line_items: ReadonlyArray<{ id: number; quantity: number }>
  readonly notes: ReadonlyArray<{ id: number; note: string; customer_note: boolean }>
  readonly emails: ReadonlyArray<
    { type: string; tracking: ReadonlyArray<{ provider: string; number: string; link: string }>; note?: string }
  >
  readonly shipment_trackings: ReadonlyArray<{ tracking_provider: string; tracking_number: string; tracking_link: string }>
}

const pushAll = (order: SimOrder, tracking: FulfillmentPush["tracking"]): FulfillmentPush => ({
  storeOrderId: String(order.id),
  lines: order.line_items.map((l) => ({ lineId: String(l.id), quantity: l.quantity })) as unknown as FulfillmentPush["lines"],
  tracking
})

const newOrder = (sim: Sim) => admin<SimOrder>(sim, "POST", "orders", { lineItems: [simTeeLine] })
const read = (sim: Sim, order: SimOrder) => admin<SimOrder>(sim, "GET", `orders/${order.id}`)
const completedEmail = (order: SimOrder) => order.emails.find((e) => e.type === "customer_completed_order")

const setUp = (options: Parameters<typeof startSimulator>[0]) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const sim = yield* startSimulator(options)
    return { sim, connector: yield* connectTo(sim) }
  })

describe("WooCommerce tracking with the Shipment Tracking extension", () => {
  it.scoped("reads the provider list per order, once per store, and sends a known carrier as the store spells it", () =>
    Effect.gen(function*() {
      const { sim, connector } = yield* setUp({})
      for (const [company, number] of [["FedEx", "794612345678"], ["United States Postal Service", "9400111899223033005282"]]) {
        const order = yield* newOrder(sim)
        // No link from the POD: the store builds it from its provider's template.
        expect(yield* connector.pushFulfillment(pushAll(order, { company: company!, number: number! }))).toMatchObject({ _tag: "Created" })
        const stored = yield* read(sim, order)
        expect(stored.status).toBe("completed")
        const provider = company === "FedEx" ? "Fedex" : "USPS"
        expect(stored.shipment_trackings).toEqual([expect.objectContaining({ tracking_provider: provider, tracking_number: number })])
        // What the buyer reads in the Completed email: provider, number and the provider's link.
        const [shown] = completedEmail(stored)!.tracking
        expect(shown).toEqual({ provider, number, link: expect.stringContaining(number!) })
      }
      const s = yield* stats(sim)
      expect(s.requestsByOperation["trackings.providers"]).toBe(1)
    }))

  it.scoped("sends any other carrier as a custom provider, with the POD's link or one built for the carrier", () =>
    Effect.gen(function*() {
      const { sim, connector } = yield* setUp({})
      const cases = [
        { company: "YunExpress", number: "YT2612345678", url: "https://www.yuntrack.com/track?id=YT2612345678" },
        // No link from the POD, but DHL Express's tracking page takes the number in its address.
        { company: "DHL Express", number: "1234567890" },
        // Nothing to build a link from: the buyer gets the carrier and the number.
        { company: "Pony Express", number: "PX-0001" }
      ]
      const shown = []
      for (const tracking of cases) {
        const order = yield* newOrder(sim)
        yield* connector.pushFulfillment(pushAll(order, tracking))
        shown.push(completedEmail(yield* read(sim, order))!.tracking[0])
      }
      expect(shown).toEqual([
        { provider: "YunExpress", number: "YT2612345678", link: "https://www.yuntrack.com/track?id=YT2612345678" },
        {
          provider: "DHL Express",
          number: "1234567890",
          link: "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=1234567890"
        },
        { provider: "Pony Express", number: "PX-0001", link: "" }
      ])
    }))
})

describe("WooCommerce tracking on a host that strips the Authorization header", () => {
  for (const shipmentTracking of [true, false]) {
    it.scoped(
      `switches to query-string credentials once; the buyer gets carrier and number ${
        shipmentTracking ? "in the Completed email" : "in a customer note"
      }`,
      () =>
        Effect.gen(function*() {
          const lines: Array<string> = []
          const { sim, connector } = yield* setUp({ stripsAuthorizationHeader: true, shipmentTracking })
          const order = yield* newOrder(sim)
          const tracking = { company: "UPS", number: "1ZHOST0000001", url: "https://www.ups.com/track?tracknum=1ZHOST0000001" }
          const outcome = yield* connector.pushFulfillment(pushAll(order, tracking)).pipe(
            Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push([message].flat().join(" ")))))
          )
          expect(outcome).toMatchObject({ _tag: "Created", notifiedCustomer: true })
          const stored = yield* read(sim, order)
          expect(stored.status).toBe("completed")
          if (shipmentTracking) {
            expect(completedEmail(stored)!.tracking).toEqual([{
              provider: "UPS",
              number: tracking.number,
              link: expect.stringContaining(tracking.number)
            }])
          } else {
            const notes = stored.emails.filter((e) => e.type === "customer_note")
            expect(notes).toEqual([expect.objectContaining({
              note: "Your order is on its way with UPS.\nTracking number: 1ZHOST0000001\nTrack your package: " + tracking.url
            })])
          }
          // One refusal (the first request, whose header the host dropped), then every request with the key in the query.
          expect((yield* stats(sim)).authFailures).toBe(1)
          expect(lines.filter((l) => l.includes("strips the Authorization header"))).toHaveLength(1)
          expect(lines.join("\n")).not.toContain(sim.consumerSecret)
        })
    )
  }

  it.scoped("told to use the header only, says the host strips it instead of blaming the key", () =>
    Effect.gen(function*() {
      const { sim } = yield* setUp({ stripsAuthorizationHeader: true })
      const strict = yield* connectTo(sim, { authentication: "header" })
      const error = yield* Effect.flip(strict.getOrder("4021"))
      expect(error).toMatchObject({ _tag: "StoreAuthError", status: 401 })
      expect(error.message).toContain("the host strips the Authorization header")
      expect(error.message).not.toContain(sim.consumerSecret)
    }))

  it.scoped("with the key in the query string, a wrong secret is refused in WooCommerce's words, the secret shown nowhere", () =>
    Effect.gen(function*() {
      const { sim } = yield* setUp({ stripsAuthorizationHeader: true })
      const wrongSecret = "cs_wrong-secret-7d1f"
      const wrong = yield* connectTo(sim, { authentication: "query", consumerSecret: Redacted.make(wrongSecret) })
      const error = yield* Effect.flip(wrong.getOrder("4021"))
      expect(error).toMatchObject({ _tag: "StoreAuthError", status: 401 })
      expect(error.message).toContain("WooCommerce said: Consumer secret is invalid.")
      expect(JSON.stringify(error) + error.message).not.toContain(wrongSecret)
    }))
})
