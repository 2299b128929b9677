/**
 * When a channel sends, pure: the first alert at once, then what follows within `groupMs` of a
 * send waits and goes as one message when that time is up; nothing during quiet hours but a
 * refused credential (it stops everything); a delivery waiting for its retry is not due before
 * its time. Tested under TestClock through the sender, and on its own here.
 */

export interface QuietHours {
  /** "22:00" */
  readonly from: string
  /** "07:00" */
  readonly to: string
  readonly timezone: string
}

export interface DigestSettings {
  /** 0: every alert at once. */
  readonly groupMs: number
  readonly quietHours?: QuietHours | undefined
}

/** What the digest reads of a pending delivery. */
export interface DigestItem {
  readonly nextAttemptAt: Date
  readonly alert: { readonly kind: string; readonly resolved: boolean }
}

export type SendDecision<D> =
  | { readonly _tag: "Send"; readonly deliveries: ReadonlyArray<D> }
  | { readonly _tag: "Wait"; readonly until: number }
  | { readonly _tag: "Idle" }

const MINUTE = 60_000
const DAY_MINUTES = 1440

const minutesOf = (clock: string): number => {
  const [h = "0", m = "0"] = clock.split(":")
  return Number(h) * 60 + Number(m)
}

/** The minute of the day (0–1439) at `now` in `timezone`, and the milliseconds into that minute. */
const localMinute = (now: number, timezone: string): { readonly minute: number; readonly intoMinuteMs: number } => {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    .formatToParts(new Date(now))
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0)
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0)
  return { minute: (hour * 60 + minute) % DAY_MINUTES, intoMinuteMs: now % MINUTE }
}

/** When the quiet hours around `now` end (epoch ms), or null when `now` is not in them. */
export const quietUntil = (now: number, quiet: QuietHours | undefined): number | null => {
  if (quiet === undefined) return null
  const from = minutesOf(quiet.from)
  const to = minutesOf(quiet.to)
  if (from === to) return null
  const { minute, intoMinuteMs } = localMinute(now, quiet.timezone)
  const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to
  if (!inside) return null
  const minutesLeft = (to - minute + DAY_MINUTES) % DAY_MINUTES
  return now - intoMinuteMs + minutesLeft * MINUTE
}

/** A refused credential stops everything: it goes through quiet hours and the digest's wait. */
export const isUrgent = (alert: DigestItem["alert"]): boolean => alert.kind === "credentials.refused" && !alert.resolved

/** What a channel does now with its pending deliveries, given when it last sent. */
export const decideSend = <D extends DigestItem>(
  pending: ReadonlyArray<D>,
  lastSentAt: number | null,
  now: number,
  settings: DigestSettings
): SendDecision<D> => {
  if (pending.length === 0) return { _tag: "Idle" }
  const due = pending.filter((d) => d.nextAttemptAt.getTime() <= now)
  const later = Math.min(...pending.map((d) => d.nextAttemptAt.getTime()))
  if (due.length === 0) return { _tag: "Wait", until: later }
  const urgent = due.filter((d) => isUrgent(d.alert))
  const quietEnd = quietUntil(now, settings.quietHours)
  if (quietEnd !== null) return urgent.length > 0 ? { _tag: "Send", deliveries: urgent } : { _tag: "Wait", until: quietEnd }
  if (lastSentAt === null || settings.groupMs <= 0 || now - lastSentAt >= settings.groupMs) return { _tag: "Send", deliveries: due }
  if (urgent.length > 0) return { _tag: "Send", deliveries: urgent }
  return { _tag: "Wait", until: lastSentAt + settings.groupMs }
}

/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 3_600_000

/** When a delivery that failed its `attempts`-th attempt is tried again (doubling from `firstDelayMs`, an hour at most), or null: failed for good. */
export const retryAt = (attempts: number, now: number, retry: { readonly attempts: number; readonly firstDelayMs: number }) =>
  attempts >= retry.attempts ? null : now + Math.min(MAX_RETRY_DELAY_MS, retry.firstDelayMs * 2 ** Math.max(0, attempts - 1))
