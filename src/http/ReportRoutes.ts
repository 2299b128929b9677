import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { RehearsalRuns } from "../console/RehearsalRuns.js"
import { rehearsalSummary } from "../reporting/RehearsalReports.js"
import { ReportService } from "../reporting/ReportService.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { fromLoopback, loopbackOnly, stringParam } from "./Loopback.js"

/**
 * The reconciliation reports: GET /reports lists them (newest period first,
 * with their files), GET /reports/<file> serves one file as written under
 * reports.dir, POST /reports/run[?from=&to=&store=] writes one now and
 * answers its summary (for `podsync report` while this daemon holds the
 * embedded database); POST /rehearse?store=KEY[&days=N] runs a go-live
 * rehearsal and answers its summary (for `podsync rehearse`). Loopback callers only: reports carry revenue and order
 * ids, and the same server may face the internet for webhooks.
 */

const forbidden = loopbackOnly("/reports")

/** Reports open offline and run no script: the browser is told so too. */
const HTML_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

export const ReportRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/reports",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const reports = yield* ReportService
      const listed = yield* reports.list
      return HttpServerResponse.unsafeJson({
        dir: reports.config.dir,
        reports: listed.map((r) => ({
          ...r,
          files: (r.summary?.files ?? []).map((f) => ({ format: f.format, name: f.name, url: `/reports/${encodeURIComponent(f.name)}` }))
        }))
      })
    })
  ),
  HttpRouter.get(
    "/reports/:name",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const { name } = yield* HttpRouter.params
      const reports = yield* ReportService
      const file = yield* reports.file(name ?? "")
      return Option.match(file, {
        onNone: () => HttpServerResponse.unsafeJson({ error: `no report file ${name ?? ""}: GET /reports lists them` }, { status: 404 }),
        onSome: (f) =>
          HttpServerResponse.uint8Array(f.bytes, {
            contentType: f.contentType,
            headers: f.format === "html" ? { "content-security-policy": HTML_POLICY } : {}
          })
      })
    })
  ),
  HttpRouter.post(
    "/reports/run",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const reports = yield* ReportService
      const request = { from: yield* stringParam("from"), to: yield* stringParam("to"), store: yield* stringParam("store") }
      return yield* reports.run(request).pipe(
        Effect.map(({ summary }) => HttpServerResponse.unsafeJson({ summary })),
        Effect.catchTags({
          ReportPeriodError: (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 400 })),
          UnknownReportStoreError: (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 404 })),
          ReportFilesError: (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 500 }))
        })
      )
    })
  ),
  HttpRouter.post(
    "/rehearse",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const runs = yield* Effect.serviceOption(RehearsalRuns)
      if (Option.isNone(runs)) return HttpServerResponse.unsafeJson({ error: "this process does not rehearse" }, { status: 404 })
      const store = (yield* stringParam("store")) ?? ""
      const daysText = (yield* stringParam("days")) ?? "30"
      const days = /^\d{1,3}$/.test(daysText) ? Number(daysText) : Number.NaN
      if (!(days >= 1 && days <= 365)) {
        return HttpServerResponse.unsafeJson({ error: `days must be a whole number from 1 to 365, got "${daysText}"` }, { status: 400 })
      }
      const known = [...(yield* Effect.serviceOption(StoreConnectors)).pipe(Option.map((m) => [...m.keys()]), Option.getOrElse(() => []))]
      if (!known.includes(store)) {
        return HttpServerResponse.unsafeJson({
          error: `no store "${store}" in the daemon's configuration (its stores: ${known.join(", ")})`
        }, {
          status: 404
        })
      }
      return yield* runs.value.run(store, days).pipe(
        Effect.map((result) => HttpServerResponse.unsafeJson({ summary: rehearsalSummary(result) })),
        Effect.catchTags({
          RehearsalStoreError: (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 502 })),
          ReportFilesError: (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 500 }))
        })
      )
    })
  )
)
