/**
 * The report's title as a seller reads it, pure: the stores by name and the
 * period in words, in the report's time zone ("Acme Shirts and Beta Mugs —
 * Tuesday 24 November 2026"). File names keep the compact label.
 */
import type { ReportPeriod, ReportStore } from "./ReportInput.js"

interface LocalParts {
  readonly weekday: string
  readonly day: string
  readonly month: string
  readonly year: string
  readonly time: string
  readonly date: string
}

const localParts = (ms: number, timeZone: string): LocalParts => {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  }).formatToParts(new Date(ms))
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ""
  const [weekday, day, month, year] = [part("weekday"), part("day"), part("month"), part("year")]
  return { weekday, day, month, year, time: `${part("hour")}:${part("minute")}`, date: `${day} ${month} ${year}` }
}

const HOUR = 3_600_000

/**
 * "Tuesday 24 November 2026" for one local day; "1–30 November 2026",
 * "28 November – 3 December 2026" for whole days; "Friday 20 November 2026,
 * 06:00–18:30 (UTC)" for a part of a day.
 */
export const periodInWords = (period: ReportPeriod): string => {
  try {
    const from = localParts(period.from, period.timezone)
    // The last moment of the period: its local day is the last day covered.
    const last = localParts(period.to - 1, period.timezone)
    const to = localParts(period.to, period.timezone)
    const wholeDays = from.time === "00:00" && to.time === "00:00" && period.to - period.from >= 23 * HOUR
    if (wholeDays && from.date === last.date) return `${from.weekday} ${from.date}`
    if (wholeDays) {
      if (from.year !== last.year) return `${from.date} – ${last.date}`
      if (from.month !== last.month) return `${from.day} ${from.month} – ${last.day} ${last.month} ${last.year}`
      return `${from.day}–${last.day} ${last.month} ${last.year}`
    }
    const zone = ` (${period.timezone})`
    return from.date === to.date
      ? `${from.weekday} ${from.date}, ${from.time}–${to.time}${zone}`
      : `${from.weekday} ${from.date} ${from.time} – ${to.weekday} ${to.date} ${to.time}${zone}`
  } catch {
    // A time zone Intl does not know: the period has been checked before, so this is only a fallback.
    return period.label
  }
}

/** The stores' names ("Acme Shirts", or the key when unnamed), by key. */
export const storeNamesOf = (stores: ReadonlyArray<ReportStore>): Record<string, string> =>
  Object.fromEntries(stores.map((s) => [s.key, s.name?.trim() || s.key]))

/** "A", "A and B", "A, B and C". */
const listInWords = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`

export const reportTitle = (stores: ReadonlyArray<ReportStore>, period: ReportPeriod): string => {
  const names = [...new Set(Object.values(storeNamesOf(stores)))]
  return `${names.length === 0 ? "No stores" : listInWords(names)} — ${periodInWords(period)}`
}
