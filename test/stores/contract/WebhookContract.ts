/**
 * Contract case of `StoreConnector.verifyWebhook` against the deliveries a
 * platform's simulator really sends: every copy verifies, copies of one event
 * share a dedup key, and the same headers over a changed body are refused.
 * A platform's driver says how to subscribe, which events to raise, and what
 * it expects of each delivery and of the whole.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted, type Scope } from "effect"
import type { VerifiedWebhook, WebhookDelivery } from "../../../src/domain/StoreTypes.js"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { eventually, simulatorAdmin } from "./SimulatorHarness.js"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly rawBody: Buffer
}

/** A receiver on 127.0.0.1:0 recording every delivery as it came; it answers 500 to the first `failFirst`. */
export const receiver = (path: string, failFirst = 0, onRequest: () => void = () => {}) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; received: Array<Received>; close: () => void }>((resolve) => {
          const received: Array<Received> = []
          const server = createServer((req, res) => {
            const chunks: Array<Buffer> = []
            req.on("data", (chunk: Buffer) => chunks.push(chunk))
            req.on("end", () => {
              onRequest()
              received.push({ headers: req.headers, rawBody: Buffer.concat(chunks) })
              res.writeHead(received.length <= failFirst ? 500 : 200).end()
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            resolve({ url: `http://127.0.0.1:${port}${path}`, received, close: () => server.close() })
          })
        })
    ),
    (r) => Effect.sync(r.close)
  )

/**
 * A platform's delivery builder for its pure verification cases: `genuine(raw)` are the headers a real
 * delivery of `raw` carries (signed over it). A case overrides headers (`undefined` sends one empty),
 * and may send another body under them.
 */
export const deliveryOf =
  (body: string, genuine: (raw: string) => Readonly<Record<string, string>>) =>
  (overrides: Record<string, string | undefined> = {}, raw: string = body): WebhookDelivery => ({
    headers: { ...genuine(raw), ...overrides },
    rawBody: Buffer.from(raw)
  })

/** What verification made of a delivery: "accepted", or the reason it was refused. */
export const verdictOf = (result: Either.Either<unknown, { readonly reason: string }>) =>
  Either.match(result, { onLeft: (error) => error.reason, onRight: () => "accepted" })

export interface WebhookDriver<Sim extends { readonly url: string }, Event> {
  readonly title: string
  readonly start: () => Effect.Effect<Sim, never, Scope.Scope>
  readonly connect: (sim: Sim) => Effect.Effect<StoreConnector, never, Scope.Scope>
  /** The receiver's path (`/webhooks/<store key>`). */
  readonly path: string
  /** The bodies of `POST /__sim/webhooks/subscribe` that subscribe `address` (deliveries are held until the test sends them). */
  readonly subscriptions: (address: string) => ReadonlyArray<Record<string, unknown>>
  /** Raises the events; what it answers is given to the checks. Then every delivery goes twice, newest first. */
  readonly raise: (sim: Sim) => Effect.Effect<Event>
  /** How many deliveries arrive when each is sent twice. */
  readonly deliveries: number
  /** What holds of every verified copy, before duplicates are set aside. */
  readonly eachCopy?: (verified: VerifiedWebhook, event: Event, connector: StoreConnector) => Effect.Effect<void>
  /** What holds of every first copy of an event. */
  readonly eachEvent?: (verified: VerifiedWebhook, event: Event, connector: StoreConnector) => Effect.Effect<void>
  /** What holds of the topics taken in (in the order they came) and the copies set aside as replays. */
  readonly processed: (topics: ReadonlyArray<string>, replays: number, connector: StoreConnector) => void
  /** A genuine delivery's headers over a changed body. */
  readonly forge: (received: ReadonlyArray<Received>, event: Event) => Received
}

export const verifiesSimulatorDeliveries = <Sim extends { readonly url: string }, Event>(driver: WebhookDriver<Sim, Event>) =>
  it.scopedLive(driver.title, () =>
    Effect.gen(function*() {
      const sim = yield* driver.start()
      const inbox = yield* receiver(driver.path)
      yield* simulatorAdmin(sim, "POST", "webhooks/settings", { autoDeliver: false })
      for (const subscription of driver.subscriptions(inbox.url)) yield* simulatorAdmin(sim, "POST", "webhooks/subscribe", subscription)
      const event = yield* driver.raise(sim)
      // Every delivery twice, newest first.
      yield* simulatorAdmin(sim, "POST", "webhooks/deliver", { duplicates: 1, reorder: true })
      yield* eventually(Effect.sync(() => inbox.received.length), (n) => n === driver.deliveries, `${driver.deliveries} deliveries`)

      const connector = yield* driver.connect(sim)
      const seen = new Set<string>()
      const topics: Array<string> = []
      let replays = 0
      for (const received of inbox.received) {
        const verified = Either.getOrThrow(connector.verifyWebhook({ headers: received.headers, rawBody: received.rawBody }))
        yield* driver.eachCopy?.(verified, event, connector) ?? Effect.void
        if (seen.has(verified.dedupKey)) {
          replays += 1
          continue
        }
        seen.add(verified.dedupKey)
        topics.push(verified.topic)
        yield* driver.eachEvent?.(verified, event, connector) ?? Effect.void
      }
      driver.processed(topics, replays, connector)

      const forged = driver.forge(inbox.received, event)
      const verdict = connector.verifyWebhook(forged)
      expect(Either.isLeft(verdict) && verdict.left.reason).toBe("bad_signature")
    }))

/** A store's webhook secrets in the middle of a rotation: the current secret and the previous one, beside the store's ids. */
export const rotatingSecrets = <Ids extends { readonly storeKey: string }>(
  ids: Ids,
  current = "current-secret",
  previous = "old-secret"
) => ({
  ...ids,
  webhookSecret: Redacted.make(current),
  previousWebhookSecret: Redacted.make(previous)
})

export interface SignatureDriver<Secrets extends { readonly storeKey: string; readonly previousWebhookSecret?: unknown }> {
  readonly platform: string
  readonly verify: (secrets: Secrets, delivery: WebhookDelivery) => Either.Either<VerifiedWebhook, { readonly reason: string }>
  /** The store's secrets, the previous secret of a rotation among them. */
  readonly secrets: Secrets
  /** The body of the genuine delivery, and what verification makes of it beside the store key and the payload (the body). */
  readonly body: string
  readonly verified: Omit<VerifiedWebhook, "storeKey" | "payload"> & { readonly storeOrderId: string }
  /** The platform's `deliveryOf` builder over `body`. */
  readonly delivery: (overrides?: Record<string, string | undefined>, raw?: string) => WebhookDelivery
  /** The header that carries the signature. */
  readonly signatureHeader: string
  /** The signature headers of `raw` signed with the rotation's previous secret, or with a secret the store never had. */
  readonly signedWith: (secret: "previous" | "guessed", raw: string) => Record<string, string>
  /** Signature values that are not a signature by the store's secret (truncated, wrong encoding or version). */
  readonly malformedSignatures: ReadonlyArray<string>
  /** A body that is not JSON. */
  readonly notJson: string
}

/** The verification cases every platform's webhook signature passes, pure (no simulator). */
export const verifiesSignatures = <Secrets extends { readonly storeKey: string; readonly previousWebhookSecret?: unknown }>(
  driver: SignatureDriver<Secrets>
) => {
  describe(`${driver.platform} webhook signatures (contract)`, () => {
    const verdict = (delivery: WebhookDelivery, secrets: Secrets = driver.secrets) => verdictOf(driver.verify(secrets, delivery))

    it("accepts a delivery signed over the raw body and says what it is about", () => {
      expect(driver.verify(driver.secrets, driver.delivery())).toEqual(
        Either.right({ storeKey: driver.secrets.storeKey, ...driver.verified, payload: JSON.parse(driver.body) })
      )
    })

    it("accepts the previous secret during a rotation, and only when it is configured", () => {
      const signedWithOld = driver.delivery(driver.signedWith("previous", driver.body))
      expect(verdict(signedWithOld)).toBe("accepted")
      const { previousWebhookSecret: _, ...withoutRotation } = driver.secrets
      expect(verdict(signedWithOld, withoutRotation as Secrets)).toBe("bad_signature")
    })

    it("rejects a forged, a tampered, a malformed and an unsigned delivery", () => {
      expect(verdict(driver.delivery(driver.signedWith("guessed", driver.body)))).toBe("bad_signature")
      // The genuine signature over a body that names another order.
      const tampered = driver.body.replace(driver.verified.storeOrderId, `${driver.verified.storeOrderId}9`)
      expect(verdict({ ...driver.delivery(), rawBody: Buffer.from(tampered) })).toBe("bad_signature")
      for (const signature of driver.malformedSignatures) {
        expect(verdict(driver.delivery({ [driver.signatureHeader]: signature })), signature).toBe("bad_signature")
      }
      expect(verdict(driver.delivery({ [driver.signatureHeader]: undefined }))).toBe("missing_signature")
    })

    it("refuses a signed body that is not JSON", () => {
      expect(verdict(driver.delivery({}, driver.notJson))).toBe("malformed_body")
    })
  })
}
