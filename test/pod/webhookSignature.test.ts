// POD webhook signature verification (pure): signed here with node:crypto, independently of the code under test.
import { createHmac } from "node:crypto"
import { Either, Redacted } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { podEventOf } from "../../src/pod/PodWebhookEvents.js"
import {
  decodeSignature,
  podWebhookHint,
  timestampMillis,
  verifyPodWebhook,
  type PodWebhookSecrets
} from "../../src/pod/PodWebhookSignature.js"
import { signWebhook as simulatorSign } from "../../src/simulator/pod/index.js"

/** The published Go sample, written out independently: base64url WITH padding, of the body and of the digest. */
const goBase64Url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64").replaceAll("+", "-").replaceAll("/", "_")
const signAsPublished = (
  key: string,
  path: string,
  nonce: string,
  timestamp: string,
  raw: Uint8Array | string,
  bodyPadding: "padded" | "unpadded"
) => {
  const encodedBody = bodyPadding === "padded" ? goBase64Url(raw) : Buffer.from(raw).toString("base64url")
  return goBase64Url(createHmac("sha256", key).update(path + nonce + timestamp + encodedBody).digest())
}

const KEY = "whk_live_5f2c9a"
const NOW = Date.parse("2026-11-21T12:00:00Z")
const PATH = "/webhooks/pod"
const secrets: PodWebhookSecrets = { signingKey: Redacted.make(KEY) }

const body = JSON.stringify({
  type: "order_completed",
  created_at: "2026-11-21T11:59:58Z",
  order: { gearment_id: "ord_8812", gearment_name: "#1042", vendor_id: "acme-shopify:5610000042", ord_status: "shipped" }
})

const sign = (
  encoding: "hex" | "base64" | "base64url",
  content: { path?: string; nonce?: string; timestamp?: string; raw?: string; key?: string } = {}
) =>
  createHmac("sha256", content.key ?? KEY)
    .update(
      (content.path ?? PATH) + (content.nonce ?? "n-1") + (content.timestamp ?? String(NOW / 1000)) +
        Buffer.from(content.raw ?? body).toString("base64url")
    )
    .digest(encoding)

const delivery = (headers: Record<string, string | undefined>, raw: string = body, path: string = PATH) => ({
  path,
  rawBody: Buffer.from(raw),
  headers: {
    "x-connect-timestamp": String(NOW / 1000),
    "x-connect-nonce": "n-1",
    "x-connect-signature": sign("hex"),
    ...headers
  }
})

const verdict = (result: ReturnType<typeof verifyPodWebhook>) =>
  Either.match(result, { onLeft: (error) => error.reason, onRight: () => "accepted" })

describe("POD webhook signature", () => {
  it("accepts the HMAC in hex, base64 and base64url, and says which order the delivery is about", () => {
    for (const encoding of ["hex", "base64", "base64url"] as const) {
      expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": sign(encoding) }), NOW))).toBe("accepted")
    }
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": sign("base64").replace(/=+$/, "") }), NOW))).toBe("accepted")
    const verified = Either.getOrThrow(verifyPodWebhook(secrets, delivery({}), NOW))
    expect(verified).toMatchObject({
      nonce: "n-1",
      timestampMillis: NOW,
      topic: "order_completed",
      podOrderId: "ord_8812",
      referenceId: "acme-shopify:5610000042"
    })
  })

  it("agrees with the POD simulator's signer", () => {
    const signature = simulatorSign(KEY, PATH, "n-sim", String(NOW / 1000), body)
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-nonce": "n-sim", "x-connect-signature": signature }), NOW))).toBe(
      "accepted"
    )
  })

  it("accepts the body's base64url with and without padding, as the Go and NodeJS samples sign it", () => {
    const nonce = "j2jXmLHWOJtJuQ=="
    const timestamp = String(NOW / 1000)
    // Lengths 0, 1 and 2 modulo 3: the padded and unpadded forms differ for the last two.
    for (const raw of [body, `${body} `, `${body}  `]) {
      for (const padding of ["padded", "unpadded"] as const) {
        const signature = signAsPublished(KEY, PATH, nonce, timestamp, raw, padding)
        expect(signature).toMatch(/^[A-Za-z0-9_-]{43}=$/)
        const headers = { "x-connect-nonce": nonce, "x-connect-timestamp": timestamp, "x-connect-signature": signature }
        expect(verdict(verifyPodWebhook(secrets, { path: PATH, headers, rawBody: Buffer.from(raw) }, NOW)), `${raw.length % 3} ${padding}`)
          .toBe("accepted")
        expect(verdict(verifyPodWebhook({ signingKey: Redacted.make("another") }, { path: PATH, headers, rawBody: Buffer.from(raw) }, NOW)))
          .toBe("bad_signature")
      }
    }
    // The simulator signs as the Go sample does.
    expect(simulatorSign(KEY, PATH, nonce, timestamp, `${body} `)).toBe(signAsPublished(KEY, PATH, nonce, timestamp, `${body} `, "padded"))
  })

  it("rejects another key, a tampered body, nonce, timestamp or path, and a missing signature", () => {
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": sign("hex", { key: "guessed" }) }), NOW))).toBe(
      "bad_signature"
    )
    expect(verdict(verifyPodWebhook(secrets, delivery({}, body.replace("ord_8812", "ord_8813")), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-nonce": "n-2" }), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-timestamp": String(NOW / 1000 + 1) }), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({}, body, "/proxy/webhooks/pod"), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": sign("hex").slice(0, 40) }), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": "not a signature!" }), NOW))).toBe("bad_signature")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-signature": undefined }), NOW))).toBe("missing_headers")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-nonce": undefined }), NOW))).toBe("missing_headers")
  })

  it("reads the timestamp in seconds or milliseconds, and refuses one more than 5 minutes away", () => {
    const at = (timestamp: string, now: number) =>
      verdict(
        verifyPodWebhook(secrets, delivery({ "x-connect-timestamp": timestamp, "x-connect-signature": sign("hex", { timestamp }) }), now)
      )
    expect(at(String(NOW / 1000), NOW)).toBe("accepted")
    expect(at(String(NOW), NOW)).toBe("accepted")
    expect(at(String(NOW / 1000), NOW + 300_000)).toBe("accepted")
    expect(at(String(NOW), NOW - 300_000)).toBe("accepted")
    expect(at(String(NOW / 1000), NOW + 301_000)).toBe("stale_timestamp")
    expect(at(String(NOW), NOW + 301_000)).toBe("stale_timestamp")
    expect(at(String(NOW / 1000 + 301), NOW)).toBe("stale_timestamp")
    expect(at("yesterday", NOW)).toBe("bad_timestamp")
    expect(timestampMillis("1795262400")).toBe(1_795_262_400_000)
    expect(timestampMillis("1795262400123")).toBe(1_795_262_400_123)
    expect(timestampMillis("-5")).toBeUndefined()
  })

  it("checks X-Connect-Client-Key when one is configured", () => {
    const withClientKey: PodWebhookSecrets = { ...secrets, clientKey: Redacted.make("ck_123") }
    expect(verdict(verifyPodWebhook(withClientKey, delivery({ "x-connect-client-key": "ck_123" }), NOW))).toBe("accepted")
    expect(verdict(verifyPodWebhook(withClientKey, delivery({ "x-connect-client-key": "ck_124" }), NOW))).toBe("wrong_client_key")
    expect(verdict(verifyPodWebhook(withClientKey, delivery({}), NOW))).toBe("wrong_client_key")
    expect(verdict(verifyPodWebhook(secrets, delivery({ "x-connect-client-key": "anything" }), NOW))).toBe("accepted")
  })

  it("never puts a secret in a rejection", () => {
    const withClientKey: PodWebhookSecrets = { ...secrets, clientKey: Redacted.make("ck_123") }
    for (const headers of [{ "x-connect-client-key": "x" }, { "x-connect-client-key": "ck_123", "x-connect-signature": "00" }]) {
      const result = verifyPodWebhook(withClientKey, delivery(headers), NOW)
      if (Either.isRight(result)) throw new Error("expected a rejection")
      const text = `${JSON.stringify(result.left)} ${result.left.message}`
      expect(text).not.toContain(KEY)
      expect(text).not.toContain("ck_123")
    }
  })

  it("verifies any signed body in every encoding and either body padding, and no body changed by one byte (property)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 512 }),
        fc.stringMatching(/^[0-9a-f]{1,32}$/),
        fc.constantFrom("hex" as const, "base64" as const, "base64url" as const),
        fc.boolean(),
        fc.nat(),
        (bytes, nonce, encoding, padded, flipAt) => {
          const timestamp = String(NOW)
          const encodedBody = padded ? goBase64Url(bytes) : Buffer.from(bytes).toString("base64url")
          const signature = createHmac("sha256", KEY).update(PATH + nonce + timestamp + encodedBody).digest(encoding)
          const headers = { "x-connect-nonce": nonce, "x-connect-timestamp": timestamp, "x-connect-signature": signature }
          const ok = verifyPodWebhook(secrets, { path: PATH, headers, rawBody: bytes }, NOW)
          if (!Either.isRight(ok)) return false
          if (bytes.length === 0) return true
          const changed = Uint8Array.from(bytes)
          const i = flipAt % changed.length
          changed[i] = (changed[i]! + 1) % 256
          return Either.isLeft(verifyPodWebhook(secrets, { path: PATH, headers, rawBody: changed }, NOW))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("decodes signatures only from hex or base64 of 32 bytes", () => {
    expect(decodeSignature(sign("hex"))?.length).toBe(32)
    expect(decodeSignature(`sha256=${sign("hex")}`)?.length).toBe(32)
    expect(decodeSignature(sign("base64url"))?.equals(Buffer.from(sign("hex"), "hex"))).toBe(true)
    expect(decodeSignature("%%%")).toBeUndefined()
  })
})

describe("POD webhook payloads", () => {
  it("reads V3 and V1 payloads, and nothing from bodies of another shape", () => {
    expect(podWebhookHint(JSON.parse(body))).toEqual({
      topic: "order_completed",
      event: "order_completed",
      podOrderId: "ord_8812",
      referenceId: "acme-shopify:5610000042"
    })
    expect(
      podWebhookHint({
        type: "shipping_address_verified",
        data: { gearment_ord_id: 991, gearment_ord_name: "#7", order_id: "acme-shopify:77", verify_address: "verified" }
      })
    ).toEqual({
      topic: "shipping_address_verified",
      event: "shipping_address_verified",
      podOrderId: "991",
      referenceId: "acme-shopify:77",
      addressVerified: true
    })
    expect(podWebhookHint({ type: "order_on_hold", order: { vendor_id: "" } })).toEqual({ topic: "order_on_hold", event: "order_on_hold" })
    expect(podWebhookHint([1, 2])).toEqual({})
    expect(podWebhookHint("text")).toEqual({})
    expect(podWebhookHint(undefined)).toEqual({})
  })

  it("takes V3 order.reference, else order.vendor_id, and the tracking number and variants when present", () => {
    // The published order_completed body (T1), values filled in.
    const completed = {
      order: { gearment_id: "ord_1", gearment_name: "#1001", reference: "acme-shopify:1", status: "shipped", vendor_id: "5550001" },
      tracking: { company: "UPS", number: "1Z999AA10123456784", url: "https://ups.example/1Z" },
      type: "order_completed"
    }
    expect(podWebhookHint(completed)).toEqual({
      topic: "order_completed",
      event: "order_completed",
      podOrderId: "ord_1",
      referenceId: "acme-shopify:1",
      trackingNumber: "1Z999AA10123456784"
    })
    // The published V3 address example has no reference: vendor_id stands in.
    expect(
      podWebhookHint({
        type: "shipping_address_unverified",
        order: {
          gearment_id: "ord_2",
          gearment_name: "#2",
          vendor_id: "acme-shopify:2",
          verify_address: "unverified",
          ord_status: "pending"
        }
      })
    )
      .toEqual({
        topic: "shipping_address_unverified",
        event: "shipping_address_unverified",
        podOrderId: "ord_2",
        referenceId: "acme-shopify:2",
        addressVerified: false
      })
    expect(
      podWebhookHint({
        type: "product_out_of_stock",
        order: { gearment_id: "ord_3", reference: "acme-shopify:3" },
        variant: { variant_id: "GM0002003147" }
      })
    )
      .toMatchObject({ event: "product_out_of_stock", variantIds: ["GM0002003147"] })
    expect(
      podWebhookHint({ type: "product_out_of_stock", order: { gearment_id: "ord_3" }, variants: [{ variant_id: "a" }, "b"] }).variantIds
    ).toEqual(["a", "b"])
    expect(
      podWebhookHint({
        api_key: "k",
        type: "product_out_of_stock",
        data: { gearment_ord_id: "ord_4", order_id: "acme-shopify:4", variant_id: "v-4" }
      }).variantIds
    ).toEqual(["v-4"])
    expect(
      podWebhookHint({
        api_key: "k",
        type: "tracking_updated",
        data: { gearment_ord_id: "ord_5", order_id: "acme-shopify:5", tracking_number: "9400" }
      })
    )
      .toMatchObject({ event: "tracking_updated", trackingNumber: "9400" })
  })

  it("knows every spelling of the published events, in any case; anything else is another event", () => {
    const spellings: ReadonlyArray<readonly [string, string]> = [
      ["order_completed", "order_completed"],
      ["order_cancelled", "order_cancelled"],
      ["order_canceled", "order_cancelled"],
      ["ORDER_CANCELED", "order_cancelled"],
      ["tracking_updated", "tracking_updated"],
      ["tracking_order_updated", "tracking_updated"],
      ["Tracking_Order_Updated", "tracking_updated"],
      ["TOPIC_TRACKING_ORDER_UPDATED", "tracking_updated"],
      ["VENDOR_WEBHOOK_TOPIC_TRACKING_UPDATED", "tracking_updated"],
      ["order_on_hold", "order_on_hold"],
      ["shipping_address_verified", "shipping_address_verified"],
      ["shipping_address_unverified", "shipping_address_unverified"],
      ["VENDOR_WEBHOOK_TOPIC_ADDRESS_UNVERIFIED", "shipping_address_unverified"],
      ["product_out_of_stock", "product_out_of_stock"],
      ["variant_created", "other"],
      ["variant_updated", "other"],
      ["order_in_production", "other"],
      ["", "other"]
    ]
    for (const [type, event] of spellings) expect(podEventOf(type), type).toBe(event)
  })

  it("verifies a signed body that is not JSON, with no payload", () => {
    const raw = "<xml>not json</xml>"
    const verified = verifyPodWebhook(secrets, delivery({ "x-connect-signature": sign("hex", { raw }) }, raw), NOW)
    expect(Either.getOrThrow(verified)).toEqual({ nonce: "n-1", timestampMillis: NOW, payload: undefined })
  })

  it("never names the key in a rejection, whichever body padding was tried", () => {
    const raw = `${body}  `
    const result = verifyPodWebhook(
      secrets,
      delivery({ "x-connect-signature": signAsPublished("wrong", PATH, "n-1", String(NOW / 1000), raw, "padded") }, raw),
      NOW
    )
    if (Either.isRight(result)) throw new Error("expected a rejection")
    expect(`${JSON.stringify(result.left)} ${result.left.message}`).not.toContain(KEY)
  })
})
