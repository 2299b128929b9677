/**
 * Pure pieces every store's webhook check uses: case-insensitive header
 * lookup and a constant-time comparison of an HMAC-SHA256 over the raw body
 * (Shopify and WooCommerce both sign `base64(HMAC_SHA256(rawBody, secret))`).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Redacted } from "effect"

// Lives with the delivery type, so the POD receiver can read headers without reaching into the stores.
export { headerValue } from "../domain/StoreTypes.js"

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
