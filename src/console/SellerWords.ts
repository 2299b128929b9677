/**
 * The console's words for what podsync keeps in its own terms, pure: a store by the name the seller
 * gave it (`reports.storeNames`), a moment in the seller's time zone (`reports.timezone`), a report
 * period as dates, and who did something (the person, or "podsync on <host>").
 */
import { periodInWords } from "../reports/ReportTitle.js"

export interface SellerWords {
  /** "Acme Shirts" for `acme-shopify` when named, else the key. */
  readonly store: (storeKey: string) => string
  /** "29 Nov 2026, 06:49" in the seller's time zone. */
  readonly time: (at: Date | string | number) => string
  /** "Sunday 29 November 2026", "1–7 November 2026", or a part of a day with its hours. */
  readonly period: (from: Date | string, to: Date | string) => string
  /** "anna" for `console:anna`, "podsync on vm" for the replica `vm:12197:c0ffee12`. */
  readonly actor: (actor: string) => string
  readonly timezone: string
}

export interface SellerWordsSettings {
  readonly storeNames?: Readonly<Record<string, string>> | undefined
  readonly timezone?: string | undefined
}

// A replica's owner id: `<host>:<pid>:<8 hex>` (schedule/ReplicaIdentity.ts).
const REPLICA_ID = /^(.+):(\d+):([0-9a-f]{8})$/

const msOf = (at: Date | string | number) => (at instanceof Date ? at.getTime() : typeof at === "number" ? at : Date.parse(at))

const validZone = (timezone: string | undefined): string => {
  if (timezone === undefined || timezone === "") return "UTC"
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: timezone })
    return timezone
  } catch {
    // The configuration checks the zone; a zone this runtime does not know shows UTC rather than failing a page.
    return "UTC"
  }
}

export const actorInWords = (actor: string): string => {
  if (actor.startsWith("console:")) return actor.slice("console:".length)
  const replica = REPLICA_ID.exec(actor)
  if (replica !== null) return `podsync on ${replica[1]}`
  return actor === "" ? "podsync" : `podsync (${actor})`
}

export const sellerWordsOf = (settings: SellerWordsSettings = {}): SellerWords => {
  const timezone = validZone(settings.timezone)
  const names = settings.storeNames ?? {}
  const format = new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  })
  return {
    timezone,
    store: (storeKey) => names[storeKey]?.trim() || storeKey,
    time: (at) => {
      const ms = msOf(at)
      return Number.isNaN(ms) ? String(at) : format.format(ms)
    },
    period: (from, to) => {
      const [fromMs, toMs] = [msOf(from), msOf(to)]
      const label = `${String(from)} – ${String(to)}`
      return Number.isNaN(fromMs) || Number.isNaN(toMs) ? label : periodInWords({ from: fromMs, to: toMs, timezone, label })
    },
    actor: actorInWords
  }
}
