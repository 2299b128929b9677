/**
 * Pure pieces every store's webhook check uses: case-insensitive header
 * lookup and a constant-time comparison of an HMAC-SHA256 over the raw body
 * (Shopify and WooCommerce both sign `base64(HMAC_SHA256(rawBody, secret))`).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Redacted } from "effect"
import type { WebhookDelivery } from "../domain/StoreTypes.js"

/** The first value of a header, whatever the case of its name. */
export const headerValue = (delivery: WebhookDelivery, name: string): string | undefined => {
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(delivery.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue
    const first = typeof value === "string" ? value : value[0]
    if (first !== undefined && first.trim() !== "") return first.trim()
  }
  return undefined
}

export const hmacSha256 = (secret: Redacted.Redacted<string>, body: Uint8Array): Buffer =>
  createHmac("sha256", Redacted.value(secret)).update(body).digest()

/**
 * True when `signatureBase64` is the HMAC of `body` under any of `secrets`.
 * Every secret is tried (no early exit) and compared with `timingSafeEqual`,
 * so the time taken says nothing about how close a forgery came.
 */
export const base64HmacMatches = (
  signatureBase64: string,
  body: Uint8Array,
  secrets: ReadonlyArray<Redacted.Redacted<string>>
): boolean => {
  const given = Buffer.from(signatureBase64, "base64")
  let matched = false
  for (const secret of secrets) {
    const expected = hmacSha256(secret, body)
    const same = given.length === expected.length && timingSafeEqual(given, expected)
    matched = matched || same
  }
  return matched
}
