/**
 * Report periods, pure: the previous day in `reports.timezone` (the cron job
 * and `podsync report` without flags), or `--from`/`--to`. A date alone is a
 * whole local day: `--from 2026-11-20 --to 2026-11-21` covers both days
 * (`--to` takes the day in); a date-time is an instant and `--to` excludes it.
 */
import { Data, DateTime, Either, Option } from "effect"
import type { ReportPeriod } from "./ReportInput.js"

export class ReportPeriodError extends Data.TaggedError("ReportPeriodError")<{ readonly message: string }> {}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/

const zoneOf = (timezone: string) =>
  Either.fromOption(
    DateTime.zoneMakeNamed(timezone),
    () =>
      new ReportPeriodError({
        message: `reports.timezone "${timezone}" is not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)`
      })
  )

const dayLabel = (day: DateTime.Zoned) => {
  const parts = DateTime.toParts(day)
  return `${parts.year}-${String(parts.month).padStart(2, "0")}-${String(parts.day).padStart(2, "0")}`
}

/** 2026-11-20T06:00:00.000Z → "20261120T0600Z": a label part safe in file names. */
const compact = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}Z$/, "Z").replace(/(T\d{4})00Z$/, "$1Z")

const labelOf = (from: DateTime.Zoned, to: DateTime.Zoned): string => {
  const start = DateTime.startOf(from, "day")
  const isWholeDay = DateTime.toEpochMillis(start) === DateTime.toEpochMillis(from) &&
    DateTime.toEpochMillis(DateTime.add(start, { days: 1 })) === DateTime.toEpochMillis(to)
  if (isWholeDay) return dayLabel(from)
  const endsOnDay = DateTime.toEpochMillis(DateTime.startOf(to, "day")) === DateTime.toEpochMillis(to)
  return DateTime.toEpochMillis(start) === DateTime.toEpochMillis(from) && endsOnDay
    ? `${dayLabel(from)}_${dayLabel(DateTime.subtract(to, { days: 1 }))}`
    : `${compact(DateTime.toEpochMillis(from))}_${compact(DateTime.toEpochMillis(to))}`
}

const periodOf = (from: DateTime.Zoned, to: DateTime.Zoned, timezone: string): ReportPeriod => ({
  from: DateTime.toEpochMillis(from),
  to: DateTime.toEpochMillis(to),
  timezone,
  label: labelOf(from, to)
})

/** The whole local day before the one `nowMs` falls in. */
export const previousDay = (nowMs: number, timezone: string): Either.Either<ReportPeriod, ReportPeriodError> =>
  Either.map(zoneOf(timezone), (zone) => {
    const today = DateTime.startOf(DateTime.unsafeMakeZoned(nowMs, { timeZone: zone }), "day")
    return periodOf(DateTime.subtract(today, { days: 1 }), today, timezone)
  })

/** A flag's value: a local date (its midnight, or the next one for `--to`) or an ISO-8601 instant. */
const parseBound = (text: string, zone: DateTime.TimeZone, flag: "from" | "to"): Either.Either<DateTime.Zoned, ReportPeriodError> => {
  const date = DATE_ONLY.exec(text.trim())
  if (date !== null) {
    const [, year, month, day] = date
    const midnight = DateTime.makeZoned({ year: Number(year), month: Number(month), day: Number(day) }, {
      timeZone: zone,
      adjustForTimeZone: true
    })
    return Option.match(midnight, {
      onNone: () => Either.left(new ReportPeriodError({ message: `--${flag} ${text} is not a date` })),
      onSome: (m) => Either.right(flag === "to" ? DateTime.add(m, { days: 1 }) : m)
    })
  }
  const instant = Date.parse(text)
  return Number.isNaN(instant) || !/^\d{4}-\d{2}-\d{2}T/.test(text.trim())
    ? Either.left(
      new ReportPeriodError({ message: `--${flag} ${text}: expected a date (2026-11-20) or an ISO-8601 date-time (2026-11-20T06:00:00Z)` })
    )
    : Either.right(DateTime.unsafeMakeZoned(instant, { timeZone: zone }))
}

/**
 * The period `podsync report` asks for: no flags → the previous day; `--from`
 * alone → from then until now; `--to` needs `--from`.
 */
export const periodFromFlags = (
  flags: { readonly from?: string | undefined; readonly to?: string | undefined },
  nowMs: number,
  timezone: string
): Either.Either<ReportPeriod, ReportPeriodError> =>
  Either.gen(function*() {
    if (flags.from === undefined && flags.to === undefined) return yield* previousDay(nowMs, timezone)
    if (flags.from === undefined) {
      return yield* Either.left(new ReportPeriodError({ message: "--to needs --from (e.g. --from 2026-11-01 --to 2026-11-30)" }))
    }
    const zone = yield* zoneOf(timezone)
    const from = yield* parseBound(flags.from, zone, "from")
    const to = flags.to === undefined ? DateTime.unsafeMakeZoned(nowMs, { timeZone: zone }) : yield* parseBound(flags.to, zone, "to")
    if (DateTime.toEpochMillis(to) <= DateTime.toEpochMillis(from)) {
      return yield* Either.left(
        new ReportPeriodError({
          message: `the period is empty: --from ${flags.from} is not before ${flags.to === undefined ? "now" : `--to ${flags.to}`}`
        })
      )
    }
    return periodOf(from, to, timezone)
  })

/** The file name stem of a report: `report-2026-11-20` or `report-2026-11-20-acme-shopify`. */
export const reportFileStem = (period: ReportPeriod, store: string | null): string =>
  `report-${period.label}${store === null ? "" : `-${store}`}`
