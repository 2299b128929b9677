/**
 * Whether a verified delivery is taken in, given the Clock (the port's
 * `admitWebhook`). Verification stays free of clocks; what needs "now" (a
 * replay bound) or a platform's own conventions (WooCommerce's ping) is
 * decided here, so the webhook route knows no platform.
 */
import type { VerifiedWebhook } from "../domain/StoreTypes.js"
import type { WebhookAdmission } from "./StoreConnector.js"

export const accepted: WebhookAdmission = { _tag: "Accept" }

/** Every verified delivery is taken in (Shopify: nothing signed bounds a replay, the dedup key does). */
export const acceptEvery = (): WebhookAdmission => accepted

/** How far a delivery's signed timestamp may be from now, either way. */
export const REPLAY_WINDOW_SECONDS = 300

/** True when a verified delivery's signed timestamp is within `windowSeconds` of `nowMillis`. */
export const isWithinReplayWindow = (
  webhook: Pick<VerifiedWebhook, "triggeredAt">,
  nowMillis: number,
  windowSeconds: number = REPLAY_WINDOW_SECONDS
): boolean => {
  if (webhook.triggeredAt === undefined) return false
  const at = Date.parse(webhook.triggeredAt)
  return !Number.isNaN(at) && Math.abs(nowMillis - at) <= windowSeconds * 1000
}

/** For senders that sign their timestamp (JSON feed, Etsy's Standard Webhooks): a replay from outside the window is refused. */
export const refuseOutsideReplayWindow = (webhook: VerifiedWebhook, nowMillis: number): WebhookAdmission =>
  isWithinReplayWindow(webhook, nowMillis)
    ? accepted
    : { _tag: "Refuse", error: "stale", detail: `the signed timestamp is more than ${REPLAY_WINDOW_SECONDS / 60} minutes from now` }
