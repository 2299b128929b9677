import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, DateTime, Effect, Option } from "effect"
import type { DbError } from "../db/Db.js"
import { isPersonAction } from "../domain/PersonAction.js"
import type { StatusReport } from "../observability/StatusReport.js"
import { lookUpOrder } from "../pipeline/Explain.js"
import { actOnOrders, type ActionOutcome, seenOrderOf } from "../pipeline/PersonActions.js"
import { ReportService } from "../reporting/ReportService.js"
import { NEEDS_A_PERSON } from "../domain/OrderState.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ConsoleAuth } from "./ConsoleAuth.js"
import { type Caller, htmlResponse, SECURITY_HEADERS, withSessionCookie } from "./ConsoleGuard.js"
import { chrome, formOf, getPage, param, postAction, query } from "./ConsoleRequest.js"
import { CONSOLE_CSS } from "./ConsoleStyle.js"
import { html, loginPage, page, renderFragment } from "./Html.js"
import { overviewContent, type OverviewExtras, overviewLive, type OverviewRange, overviewRangeOf } from "./OverviewView.js"
import { filterOfReasonKey, outcomeList, type QueueFilter, queueContent, reasonKeyOf } from "./QueueView.js"
import { mappingsRoutes } from "./MappingsRoutes.js"
import { reportsContent } from "./ReportsView.js"
import { storyContent } from "./StoryView.js"
import type { OrderLinks } from "./OrderLinks.js"

/** When a waiting order counts as stuck, from `reports:` (the report says the same). */
export interface AttentionSettings {
  readonly notCheckedOutAfterHours: number
  readonly noDraftAfterMinutes: number
  /** reports.timezone: where "today" begins on the overview. Default UTC. */
  readonly timezone?: string
}

const QUEUE_LIMIT = 200

// htmx is served from the daemon's own node_modules: no CDN, works offline.
const HTMX = fs.readFileSync(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"))

const driftOf = Effect.gen(function*() {
  const reports = yield* Effect.serviceOption(ReportService)
  if (Option.isNone(reports)) return null
  // The drift count is one card of the overview: a failed read is logged and shown as unknown.
  const listed = yield* reports.value.list.pipe(
    Effect.catchAll((error) => Effect.as(Effect.logWarning("console: the reports could not be read", error), []))
  )
  const summary = listed.find((r) => r.summary !== null)?.summary
  return summary === undefined || summary === null ? null : { findings: summary.findings, label: summary.label }
})

/**
 * The web console at /console (issue 15): overview, the needs-a-person queue with its actions,
 * and each order's story. `statusReport` is what GET /status answers (the daemon's HTTP layer
 * gives it), so the console reads what the CLI reads.
 */
export const consoleRoutes = <R>(
  statusReport: Effect.Effect<StatusReport, DbError, R>,
  attention: AttentionSettings,
  links: OrderLinks = () => []
) => {
  /** The orders of the range by store and state (null: every order, as the status report counts them). */
  const recentOf = (range: OverviewRange) =>
    range === "all" ? Effect.succeed(null) : Effect.gen(function*() {
      const nowMs = yield* Clock.currentTimeMillis
      const since = range === "7d"
        ? nowMs - 7 * 86_400_000
        : DateTime.toEpochMillis(DateTime.startOf(DateTime.unsafeMakeZoned(nowMs, { timeZone: attention.timezone ?? "UTC" }), "day"))
      return yield* Effect.flatMap(StatusRepo, (repo) => repo.ordersPulledSince(new Date(since)))
    })
  const overviewData = (range: OverviewRange = "all") =>
    Effect.all({ report: statusReport, drift: driftOf, recent: recentOf(range) }).pipe(
      Effect.map(({ drift, recent, report }) => ({ report, extras: { drift, range, recent } satisfies OverviewExtras }))
    )
  const rangeParam = Effect.map(query("range"), overviewRangeOf)

  const queuePage = (caller: Caller, filter: QueueFilter, outcomes: ReadonlyArray<ActionOutcome>) =>
    Effect.gen(function*() {
      const repo = yield* AttentionRepo
      const nowMs = yield* Clock.currentTimeMillis
      const reason = filter.reason === undefined ? {} : filterOfReasonKey(filter.reason)
      const bounds = {
        draftedBefore: new Date(nowMs - attention.notCheckedOutAfterHours * 3_600_000),
        inDoubtBefore: new Date(nowMs - attention.noDraftAfterMinutes * 60_000)
      }
      const orders = yield* repo.waiting({ storeKey: filter.store, ...reason, ...bounds, limit: QUEUE_LIMIT })
      // Every reason waiting now (the groups `podsync status` counts), and those of the orders listed.
      const groups = yield* Effect.flatMap(StatusRepo, (repo) => repo.waitingIn(NEEDS_A_PERSON))
      const reasonKeys = [...new Set(groups.map(reasonKeyOf).concat(orders.map(reasonKeyOf)))].sort()
      const stores = yield* Effect.serviceOption(StoreConnectors)
      const storeKeys = [
        ...new Set([...Option.match(stores, { onNone: () => [], onSome: (m) => [...m.keys()] }), ...groups.map((g) => g.storeKey)])
      ].sort()
      const content = queueContent({
        orders,
        storeKeys,
        reasonKeys,
        filter,
        nowMs,
        csrfToken: caller.csrfToken,
        actionKey: randomUUID(),
        outcomes,
        limit: QUEUE_LIMIT,
        links
      })
      return htmlResponse(page(yield* chrome(caller, "Needs a person", "queue"), content))
    })

  return HttpRouter.empty.pipe(
    HttpRouter.get(
      "/console/assets/console.css",
      Effect.succeed(HttpServerResponse.text(CONSOLE_CSS, { contentType: "text/css; charset=utf-8", headers: SECURITY_HEADERS }))
    ),
    HttpRouter.get(
      "/console/assets/htmx.min.js",
      Effect.succeed(HttpServerResponse.uint8Array(HTMX, { contentType: "text/javascript; charset=utf-8", headers: SECURITY_HEADERS }))
    ),
    HttpRouter.get(
      "/console/login",
      Effect.gen(function*() {
        const auth = yield* ConsoleAuth
        if (auth.access._tag !== "Login") return HttpServerResponse.redirect("/console", { status: 303, headers: SECURITY_HEADERS })
        return htmlResponse(loginPage(undefined))
      })
    ),
    HttpRouter.post(
      "/console/login",
      Effect.gen(function*() {
        const auth = yield* ConsoleAuth
        const request = yield* HttpServerRequest.HttpServerRequest
        if (auth.access._tag !== "Login") return HttpServerResponse.redirect("/console", { status: 303, headers: SECURITY_HEADERS })
        const origin = request.headers["origin"]
        if (origin !== undefined && (!URL.canParse(origin) || new URL(origin).host !== request.headers["host"])) {
          return htmlResponse(loginPage("refused: the login form must be sent from this console"), 403)
        }
        const form = yield* formOf
        const address = Option.getOrElse(request.remoteAddress, () => "unknown")
        const outcome = yield* auth.login(address, param(form, "user") ?? "", param(form, "password") ?? "")
        switch (outcome._tag) {
          case "Limited":
            yield* Effect.logWarning("console: login refused, too many failed attempts").pipe(Effect.annotateLogs({ address }))
            return htmlResponse(
              loginPage(`too many failed logins from this address: try again in ${Math.ceil(outcome.retryAfterSeconds / 60)} min`),
              429
            )
          case "Refused":
            yield* Effect.logWarning("console: failed login").pipe(Effect.annotateLogs({ address }))
            return htmlResponse(loginPage("wrong user, password or token"), 401)
          case "LoggedIn":
            yield* Effect.logInfo("console: logged in").pipe(Effect.annotateLogs({ user: outcome.session.user, address }))
            return withSessionCookie(
              HttpServerResponse.redirect("/console", { status: 303, headers: SECURITY_HEADERS }),
              request,
              auth.cookieValue(outcome.session),
              outcome.session.expiresAtMs
            )
        }
      })
    ),
    HttpRouter.post(
      "/console/logout",
      postAction((caller) =>
        Effect.gen(function*() {
          yield* (yield* ConsoleAuth).logout(caller.session)
          return HttpServerResponse.redirect("/console/login", { status: 303, headers: SECURITY_HEADERS }).pipe(
            HttpServerResponse.expireCookie("podsync_console", { path: "/console" })
          )
        })
      )
    ),
    HttpRouter.get(
      "/console",
      getPage((caller) =>
        Effect.gen(function*() {
          const { extras, report } = yield* overviewData(yield* rangeParam)
          return htmlResponse(page(yield* chrome(caller, "Overview", "overview"), overviewContent(report, extras)))
        })
      )
    ),
    HttpRouter.get(
      "/console/live",
      getPage(() =>
        Effect.map(
          Effect.flatMap(rangeParam, overviewData),
          ({ extras, report }) => htmlResponse(renderFragment(overviewLive(report, extras)))
        )
      )
    ),
    HttpRouter.get(
      "/console/queue",
      getPage((caller) =>
        Effect.gen(function*() {
          return yield* queuePage(caller, { store: yield* query("store"), reason: yield* query("reason") }, [])
        })
      )
    ),
    HttpRouter.post(
      "/console/queue/act",
      postAction((caller, form) =>
        Effect.gen(function*() {
          const one = param(form, "one")
          const [action, ...rest] = one !== undefined ? one.split("|") : [param(form, "bulk") ?? ""]
          const values = one !== undefined ? [rest.join("|")] : form.filter(([k]) => k === "sel").map(([, v]) => v)
          const seen = values.map(seenOrderOf).filter((s) => s !== undefined)
          const key = param(form, "key") ?? randomUUID()
          const outcomes = action !== undefined && isPersonAction(action) && seen.length > 0
            ? yield* actOnOrders(action, seen, { user: caller.session.user, actionKey: key })
            : [{ id: 0, referenceId: null, outcome: "refused" as const, message: "choose an action and at least one order" }]
          yield* Effect.logInfo("console: action").pipe(
            Effect.annotateLogs({
              user: caller.session.user,
              action,
              orders: outcomes.map((o) => `${o.referenceId ?? o.id}: ${o.outcome}`)
            })
          )
          const back = param(form, "back")
          if (back !== undefined) return yield* storyPage(caller, back, outcomes)
          return yield* queuePage(
            caller,
            { store: param(form, "store") || undefined, reason: param(form, "reason") || undefined },
            outcomes
          )
        })
      )
    ),
    HttpRouter.get("/console/reports", getPage((caller) => reportsPage(caller, undefined))),
    HttpRouter.get(
      "/console/reports/file/:name",
      getPage(() =>
        Effect.gen(function*() {
          const { name } = yield* HttpRouter.params
          const reports = yield* Effect.serviceOption(ReportService)
          const file = Option.isNone(reports) ? Option.none() : yield* reports.value.file(name ?? "")
          return Option.match(file, {
            onNone: () => htmlResponse(`no report file ${name ?? ""}`, 404),
            onSome: (f) =>
              HttpServerResponse.uint8Array(f.bytes, {
                contentType: f.contentType,
                // A report is a page of its own: inline styles, nothing loaded, no script.
                headers: {
                  ...SECURITY_HEADERS,
                  "content-security-policy": f.format === "html"
                    ? "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"
                    : SECURITY_HEADERS["content-security-policy"],
                  ...(f.format === "html"
                    ? {}
                    : { "content-disposition": `attachment; filename="${(name ?? "").replace(/[^A-Za-z0-9._-]/g, "_")}"` })
                }
              })
          })
        })
      )
    ),
    HttpRouter.post(
      "/console/reports/run",
      postAction((caller, form) =>
        Effect.gen(function*() {
          const reports = yield* Effect.serviceOption(ReportService)
          if (Option.isNone(reports)) {
            return yield* reportsPage(caller, { ok: false, text: "reports are not written by this process" })
          }
          const request = {
            from: param(form, "from") || undefined,
            to: param(form, "to") || undefined,
            store: param(form, "store") || undefined
          }
          yield* Effect.logInfo("console: report run").pipe(Effect.annotateLogs({ user: caller.session.user, ...request }))
          const flash = yield* reports.value.run(request).pipe(
            Effect.map(({ summary }) => ({ ok: true, text: `written: ${summary.label}, ${summary.findings} drift findings` })),
            Effect.catchTags({
              ReportPeriodError: (error) => Effect.succeed({ ok: false, text: error.message }),
              UnknownReportStoreError: (error) => Effect.succeed({ ok: false, text: error.message }),
              ReportFilesError: (error) => Effect.succeed({ ok: false, text: error.message })
            })
          )
          return yield* reportsPage(caller, flash)
        })
      )
    ),
    HttpRouter.get(
      "/console/order",
      getPage((caller) => Effect.flatMap(query("ref"), (ref) => storyPage(caller, ref ?? "", [])))
    ),
    HttpRouter.concat(mappingsRoutes)
  )

  function reportsPage(caller: Caller, flash: { readonly ok: boolean; readonly text: string } | undefined) {
    return Effect.gen(function*() {
      const reports = yield* Effect.serviceOption(ReportService)
      const listed = Option.isNone(reports) ? [] : yield* reports.value.list
      const { report } = yield* overviewData()
      const content = reportsContent({
        reports: listed,
        csrfToken: caller.csrfToken,
        storeKeys: report.pulls.map((p) => p.storeKey),
        flash
      })
      return htmlResponse(page(yield* chrome(caller, "Reports", "reports"), content))
    })
  }

  function storyPage(caller: Caller, ref: string, outcomes: ReadonlyArray<ActionOutcome>) {
    return Effect.gen(function*() {
      const found = yield* lookUpOrder(ref)
      const title = yield* chrome(caller, ref, "order")
      if (found._tag !== "Found") {
        const text = found._tag === "NotFound" ? `No order ${ref}.` : `${ref} is more than one order: ${found.references.join(", ")}.`
        return htmlResponse(page(title, html`<p class="muted">${text}</p>`), 404)
      }
      const orders = yield* OrdersRepo
      const stored = yield* orders.byReference(found.story.referenceId)
      if (stored === undefined) return htmlResponse(page(title, html`<p class="muted">No order ${ref}.</p>`), 404)
      const events = yield* orders.story(stored.id)
      const content = storyContent({
        story: found.story,
        stored,
        eventData: events.map((e) => e.data),
        csrfToken: caller.csrfToken,
        actionKey: randomUUID(),
        links: links({ referenceId: stored.referenceId, podDraftId: stored.podDraftId, podOrderId: stored.podOrderId })
      })
      return htmlResponse(
        page({ ...title, title: found.story.name }, outcomes.length === 0 ? content : html`${outcomeList(outcomes)}${content}`)
      )
    })
  }
}
