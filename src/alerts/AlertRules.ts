/**
 * Which channels an alert goes to, pure: every rule whose events (and stores, when it names
 * some) match the alert adds its channels (all channels when it names none). No rules: every
 * alert to every channel. An alert no rule matches is routed nowhere.
 */
import { matchesEvent } from "../domain/Alert.js"

export interface AlertRule {
  readonly events: ReadonlyArray<string>
  readonly stores?: ReadonlyArray<string> | undefined
  readonly channels?: ReadonlyArray<string> | undefined
}

export const routeAlert = (
  rules: ReadonlyArray<AlertRule> | undefined,
  channels: ReadonlyArray<string>,
  alert: { readonly kind: string; readonly reason: string | null; readonly storeKey: string | null }
): ReadonlyArray<string> => {
  if (rules === undefined) return channels
  const out = new Set<string>()
  for (const rule of rules) {
    if (!rule.events.some((pattern) => matchesEvent(pattern, alert.kind, alert.reason))) continue
    // A rule for some stores leaves out alerts of other stores, and those of no store (conditions of the POD service).
    if (rule.stores !== undefined && (alert.storeKey === null || !rule.stores.includes(alert.storeKey))) continue
    for (const channel of rule.channels ?? channels) if (channels.includes(channel)) out.add(channel)
  }
  return channels.filter((c) => out.has(c))
}
