import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, DateTime, Effect, Option } from "effect"
import type { DbError } from "../db/Db.js"
import { ACTION_LABELS, isPersonAction } from "../domain/PersonAction.js"
import type { StatusReport } from "../observability/StatusReport.js"
import { lookUpOrder } from "../pipeline/Explain.js"
import { actOnOrders, type ActionOutcome, seenOrderOf } from "../pipeline/PersonActions.js"
import { ReportService } from "../reporting/ReportService.js"
import { moneyByPeriod } from "../reports/MoneyByPeriod.js"
import { AWAITING_STORE_PAYMENT, NEEDS_A_PERSON } from "../domain/OrderState.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { OrderListRepo } from "../repos/OrderListRepo.js"
import { isDryRun } from "../config/DryRun.js"
import { dryRunContent } from "./DryRunView.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { ConsoleActionsRepo } from "../repos/ConsoleActionsRepo.js"
import { AUDIT_PAGE_SIZE, auditContent } from "./AuditView.js"
import { ConsoleAuth } from "./ConsoleAuth.js"
import { type Caller, CONTENT_SECURITY_POLICY, htmlResponse, SECURITY_HEADERS, withSessionCookie } from "./ConsoleGuard.js"
import { chrome, formOf, getPage, param, postAction, query, recordActions } from "./ConsoleRequest.js"
import { CONSOLE_CSS } from "./ConsoleStyle.js"
import { html, loginPage, page, renderFragment } from "./Html.js"
import { overviewContent, type OverviewExtras, overviewLive, type OverviewRange, overviewRangeOf } from "./OverviewView.js"
import { filterOfReasonKey, outcomeList, OutcomesFlash, outcomesFlashOf, type QueueFilter, queueContent, reasonKeyOf } from "./QueueView.js"
import { fitItems, fitText, Notice, redirectWithFlash, withFlash } from "./ConsoleFlash.js"
import { mappingsRoutes } from "./MappingsRoutes.js"
import { orderFixRoutes } from "./OrderFixRoutes.js"
import { orderListRoutes } from "./OrderListRoutes.js"
import { reportsContent } from "./ReportsView.js"
import { RehearsalRuns } from "./RehearsalRuns.js"
import { rehearseContent } from "./RehearseView.js"
import { designsOf, podFactsOf } from "./OrderFacts.js"
import { type SellerWords, sellerWordsOf } from "./SellerWords.js"
import { storyContent } from "./StoryView.js"
import type { OrderLinks } from "./OrderLinks.js"

/** When a waiting order counts as stuck, from `reports:` (the report says the same). */
export interface AttentionSettings {
  readonly notCheckedOutAfterHours: number
  readonly noDraftAfterMinutes: number
  /** reports.timezone: where "today" begins on the overview, and the time zone of every time shown. Default UTC. */
  readonly timezone?: string
  /** reports.storeNames: the names the console shows for store keys. */
  readonly storeNames?: Readonly<Record<string, string>>
}

const QUEUE_LIMIT = 200
/** The would-be drafts listed at once (the newest). */
const DRY_RUN_LIMIT = 500

// The order page shows the lines' design files as thumbnails: images (only) may come from the web.
const ORDER_PAGE_CSP = CONTENT_SECURITY_POLICY.replace("img-src 'self' data:", "img-src 'self' data: https:")

// htmx is served from the daemon's own node_modules: no CDN, works offline.
const HTMX = fs.readFileSync(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"))

/** The overview's part of the reports: the last drift count, and the money of the daily reports. */
const reportsPartOf = (words: SellerWords) =>
  Effect.gen(function*() {
    const reports = yield* Effect.serviceOption(ReportService)
    if (Option.isNone(reports)) return { drift: null, money: null }
    // The drift count and the money are parts of the overview: a failed read is logged and shown as unknown.
    const listed = yield* reports.value.list.pipe(
      Effect.catchAll((error) => Effect.as(Effect.logWarning("console: the reports could not be read", error), []))
    )
    const summary = listed.find((r) => r.summary !== null)?.summary
    return {
      drift: summary === undefined || summary === null
        ? null
        : { findings: summary.findings, label: words.period(summary.from, summary.to) },
      money: moneyByPeriod(listed)
    }
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
  const words = sellerWordsOf({ storeNames: attention.storeNames, timezone: attention.timezone })
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
    Effect.all({ report: statusReport, reports: reportsPartOf(words), recent: recentOf(range) }).pipe(
      Effect.map(({ recent, report, reports }) => ({ report, extras: { ...reports, range, recent, words } satisfies OverviewExtras }))
    )
  const rangeParam = Effect.map(query("range"), overviewRangeOf)

  const queuePage = (caller: Caller, filter: QueueFilter, outcomes: ReadonlyArray<ActionOutcome>, moreOutcomes = 0) =>
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
        moreOutcomes,
        limit: QUEUE_LIMIT,
        links,
        awaitingPayment: groups.filter((g) => g.state === "held" && g.reason === AWAITING_STORE_PAYMENT),
        words
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
      "/console/dry-run",
      getPage((caller) =>
        Effect.gen(function*() {
          const recorded = yield* Effect.flatMap(OrderListRepo, (repo) => repo.wouldSend(DRY_RUN_LIMIT))
          const content = dryRunContent({ dryRun: yield* isDryRun, rows: recorded.orders, ...recorded, words })
          return htmlResponse(page(yield* chrome(caller, "Would-be drafts", "dry-run"), content))
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
          const filter = { store: yield* query("store"), reason: yield* query("reason") }
          return yield* withFlash(OutcomesFlash, (flash) =>
            Option.match(flash, {
              onNone: () => queuePage(caller, filter, []),
              onSome: (f) => queuePage(caller, filter, f.outcomes, f.more)
            }))
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
          if (action !== undefined && isPersonAction(action)) {
            yield* recordActions(
              caller,
              outcomes.map((o) => ({
                kind: action,
                outcome: o.outcome,
                summary: `${ACTION_LABELS[action]}: ${o.outcome === "refused" ? `refused, ${o.message}` : o.message}`,
                referenceId: o.referenceId
              }))
            )
          }
          yield* Effect.logInfo("console: action").pipe(
            Effect.annotateLogs({
              user: caller.session.user,
              action,
              orders: outcomes.map((o) => `${o.referenceId ?? o.id}: ${o.outcome}`)
            })
          )
          // Answered by a redirect to the page the action came from (a reload asks nothing again).
          const back = param(form, "back")
          const filter = new URLSearchParams(
            [["store", param(form, "store") ?? ""], ["reason", param(form, "reason") ?? ""]].filter(([, v]) => v !== "")
          ).toString()
          const location = back !== undefined
            ? `/console/order?ref=${encodeURIComponent(back)}`
            : `/console/queue${filter === "" ? "" : `?${filter}`}`
          return yield* redirectWithFlash(
            location,
            fitItems(outcomesFlashOf(outcomes), (kept, more): OutcomesFlash => ({ outcomes: kept, more }))
          )
        })
      )
    ),
    HttpRouter.get(
      "/console/reports",
      getPage((caller) => withFlash(Notice, (flash) => reportsPage(caller, Option.getOrUndefined(flash))))
    ),
    HttpRouter.get(
      "/console/rehearse",
      getPage((caller) => withFlash(Notice, (flash) => rehearsePage(caller, Option.getOrUndefined(flash))))
    ),
    HttpRouter.post(
      "/console/rehearse/run",
      postAction((caller, form) =>
        Effect.gen(function*() {
          const runs = yield* Effect.serviceOption(RehearsalRuns)
          const store = param(form, "store") ?? ""
          const daysText = param(form, "days") || "30"
          const days = /^\d{1,3}$/.test(daysText) ? Number(daysText) : Number.NaN
          const stores = yield* Effect.serviceOption(StoreConnectors)
          const known = Option.match(stores, { onNone: () => [] as Array<string>, onSome: (m) => [...m.keys()] })
          const notice: Notice = Option.isNone(runs)
            ? { ok: false, text: "rehearsals are not run by this process" }
            : !known.includes(store)
            ? { ok: false, text: `no store "${store}": choose one of ${known.join(", ")}` }
            : !(days >= 1 && days <= 365)
            ? { ok: false, text: `days must be a whole number from 1 to 365, not "${daysText}"` }
            : (yield* runs.value.start(store, days))
            ? { ok: true, text: `rehearsing ${words.store(store)} over the last ${days} day(s): reload this page to see the report` }
            : { ok: false, text: `a rehearsal of ${words.store(store)} is already running` }
          yield* Effect.logInfo("console: rehearsal").pipe(
            Effect.annotateLogs({ user: caller.session.user, store, days: daysText, ok: notice.ok })
          )
          yield* recordActions(caller, [{
            kind: "rehearsal_run",
            outcome: notice.ok ? "done" : "refused",
            summary: `Rehearsal ${notice.ok ? "started" : "refused"}: ${notice.text}`,
            ...(known.includes(store) ? { storeKey: store } : {})
          }])
          return yield* redirectWithFlash("/console/rehearse", { ok: notice.ok, text: fitText(notice.text) } satisfies Notice)
        })
      )
    ),
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
            return yield* redirectWithFlash("/console/reports", { ok: false, text: "reports are not written by this process" })
          }
          const request = {
            from: param(form, "from") || undefined,
            to: param(form, "to") || undefined,
            store: param(form, "store") || undefined
          }
          yield* Effect.logInfo("console: report run").pipe(Effect.annotateLogs({ user: caller.session.user, ...request }))
          const flash = yield* reports.value.run(request).pipe(
            Effect.map(({ summary }) => ({
              ok: true,
              text: `written: ${words.period(summary.from, summary.to)}, ${summary.findings} drift findings`
            })),
            Effect.catchTags({
              ReportPeriodError: (error) => Effect.succeed({ ok: false, text: error.message }),
              UnknownReportStoreError: (error) => Effect.succeed({ ok: false, text: error.message }),
              ReportFilesError: (error) => Effect.succeed({ ok: false, text: error.message })
            })
          )
          yield* recordActions(caller, [{
            kind: "report_run",
            outcome: flash.ok ? "done" : "refused",
            summary: `Report run: ${flash.text}`,
            storeKey: request.store ?? null
          }])
          return yield* redirectWithFlash("/console/reports", { ok: flash.ok, text: fitText(flash.text) } satisfies Notice)
        })
      )
    ),
    HttpRouter.get(
      "/console/order",
      getPage((caller) =>
        Effect.flatMap(query("ref"), (ref) =>
          withFlash(OutcomesFlash, (flash) =>
            Option.match(flash, {
              onNone: () => storyPage(caller, ref ?? "", []),
              onSome: (f) => storyPage(caller, ref ?? "", f.outcomes)
            })))
      )
    ),
    HttpRouter.get(
      "/console/audit",
      getPage((caller) =>
        Effect.gen(function*() {
          const before = Number(yield* query("before"))
          const older = Number.isSafeInteger(before) && before > 0
          const listed = yield* (yield* ConsoleActionsRepo).page({ before: older ? before : undefined, limit: AUDIT_PAGE_SIZE })
          return htmlResponse(page(yield* chrome(caller, "Audit", "audit"), auditContent(listed, words, older)))
        })
      )
    ),
    HttpRouter.concat(mappingsRoutes),
    HttpRouter.concat(orderFixRoutes),
    HttpRouter.concat(orderListRoutes(links, attention.timezone ?? "UTC", words.store))
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
        flash,
        words
      })
      return htmlResponse(page(yield* chrome(caller, "Reports", "reports"), content))
    })
  }

  function rehearsePage(caller: Caller, flash: Notice | undefined) {
    return Effect.gen(function*() {
      const runs = yield* Effect.serviceOption(RehearsalRuns)
      const latest = Option.isNone(runs) ? [] : yield* runs.value.latest
      const stores = yield* Effect.serviceOption(StoreConnectors)
      const content = rehearseContent({
        csrfToken: caller.csrfToken,
        storeKeys: Option.match(stores, { onNone: () => [], onSome: (m) => [...m.keys()] }),
        latest,
        flash,
        words
      })
      return htmlResponse(page(yield* chrome(caller, "Rehearse", "rehearse"), content))
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
      const shipments = yield* Effect.flatMap(ShipmentsRepo, (repo) => repo.forOrder(stored.id))
      const content = storyContent({
        story: found.story,
        stored,
        eventData: events.map((e) => e.data),
        csrfToken: caller.csrfToken,
        actionKey: randomUUID(),
        links: links({ referenceId: stored.referenceId, podDraftId: stored.podDraftId, podOrderId: stored.podOrderId }),
        words,
        shipments,
        designs: yield* designsOf(stored),
        pod: yield* podFactsOf(stored),
        fixes: yield* orders.fixes.forOrder(stored.id)
      })
      return HttpServerResponse.setHeader(
        htmlResponse(
          page({ ...title, title: found.story.name }, outcomes.length === 0 ? content : html`${outcomeList(outcomes)}${content}`)
        ),
        "content-security-policy",
        ORDER_PAGE_CSP
      )
    })
  }
}
