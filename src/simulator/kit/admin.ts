import type { FaultRule, FaultRules } from "./faults.js"
import { deliverOptions, readQueueSettings, type DeliverOptions, type QueueSettings, type RetrySettings } from "./webhookQueue.js"

/**
 * The admin (`/__sim/`) API as every marketplace simulator answers it: the shared routes (reset, fault
 * rules, webhook settings and manual delivery, the clock) answered the same way everywhere, then the
 * simulator's own fixed routes, then its `/<records>/:id[/:action]` routes (`routeAdmin`). The
 * simulator supplies only its parts; the answers' shapes and messages are the ones it always gave.
 */

export interface AdminAnswer {
  readonly status: number
  readonly body: unknown
}

export const ok = (body: unknown): AdminAnswer => ({ status: 200, body })
export const bad = (message: string, status = 400): AdminAnswer => ({ status, body: { error: message } })

/** The body as an object; anything else reads as `{}` so that optional fields simply fall back. */
export const asObject = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

/** The path below `/__sim/` in segments. */
export const adminPathParts = (path: string): Array<string> => path.replace(/^\/__sim\/?/, "").split("/").filter((p) => p.length > 0)

/** The webhook sender as the shared routes drive it. */
export interface AdminWebhooks<S extends QueueSettings & Partial<RetrySettings>> {
  settings: S
  deliver(options: DeliverOptions): Promise<number>
  pendingCount(): number
  deliveries(): ReadonlyArray<{ readonly status: number | null }>
  reset(): void
  /** Where the simulator keeps plain subscriptions, `GET webhooks` lists them with the settings and the log. */
  listSubscriptions?(): ReadonlyArray<unknown>
}

export interface SharedAdminParts<R extends FaultRule<string>, S extends QueueSettings & Partial<RetrySettings>> {
  /** What else `POST reset` restores (the store, limiters, switches); fault rules and webhooks are reset here. */
  readonly reset: () => void
  readonly faults: FaultRules<R>
  readonly parseFaultRule: (body: unknown) => R | string
  readonly webhooks: AdminWebhooks<S>
  /** Simulator-only webhook settings (beyond the queue's), applied after the shared ones. */
  readonly moreWebhookSettings?: (next: S, b: Record<string, unknown>) => void
  readonly clock: { advanceClock(seconds: number): void; now(): number }
  /** What `POST clock/advance` answers besides `now`. */
  readonly clockExtras?: () => Record<string, unknown>
}

/** An admin context that keeps its fault rules, webhooks and store (which is also its clock) as `state`. */
export interface StoreAdminContext<R extends FaultRule<string>, S extends QueueSettings & Partial<RetrySettings>> {
  readonly faults: FaultRules<R>
  readonly webhooks: AdminWebhooks<S>
  readonly state: SharedAdminParts<R, S>["clock"] & { reset(): void }
}

/** The shared parts of such a context: `POST reset` resets the store, then `alsoReset` (limiters and the like). */
export const storeAdminParts = <R extends FaultRule<string>, S extends QueueSettings & Partial<RetrySettings>>(
  ctx: StoreAdminContext<R, S>,
  parseFaultRule: (body: unknown) => R | string,
  alsoReset: () => void
): SharedAdminParts<R, S> => ({
  faults: ctx.faults,
  webhooks: ctx.webhooks,
  parseFaultRule,
  clock: ctx.state,
  reset: () => {
    ctx.state.reset()
    alsoReset()
  }
})

/** Answers a shared route, or null when `route` (`"<METHOD> <path>"`) is not one. */
export const sharedAdminRoute = async <R extends FaultRule<string>, S extends QueueSettings & Partial<RetrySettings>>(
  parts: SharedAdminParts<R, S>,
  route: string,
  body: unknown
): Promise<AdminAnswer | null> => {
  const b = asObject(body)
  switch (route) {
    case "POST reset":
      parts.reset()
      parts.faults.clear()
      parts.webhooks.reset()
      return ok({ ok: true })
    case "POST faults": {
      const rule = parts.parseFaultRule(body)
      if (typeof rule === "string") return bad(rule)
      parts.faults.add(rule)
      return ok({ faults: parts.faults.list() })
    }
    case "GET faults":
      return ok({ faults: parts.faults.list() })
    case "DELETE faults":
      parts.faults.clear()
      return ok({ faults: [] })
    case "POST webhooks/settings": {
      const next = readQueueSettings(parts.webhooks.settings, b)
      parts.moreWebhookSettings?.(next, b)
      parts.webhooks.settings = next
      return ok(next)
    }
    case "GET webhooks":
      if (parts.webhooks.listSubscriptions === undefined) return null
      return ok({
        subscriptions: parts.webhooks.listSubscriptions(),
        settings: parts.webhooks.settings,
        deliveries: parts.webhooks.deliveries()
      })
    case "POST webhooks/deliver":
      return ok({ sent: await parts.webhooks.deliver(deliverOptions(b)) })
    case "POST clock/advance":
      if (typeof b.seconds !== "number" || b.seconds < 0) return bad("seconds must be a non-negative number")
      parts.clock.advanceClock(b.seconds)
      return ok({ now: new Date(parts.clock.now()).toISOString(), ...parts.clockExtras?.() })
  }
  return null
}

/** `webhooksPending` and `webhooksDelivered` (2xx answers among `delivered`) for the stats route. */
export const webhookStats = (
  webhooks: AdminWebhooks<QueueSettings>,
  delivered: ReadonlyArray<{ readonly status: number | null }> = webhooks.deliveries()
) => ({
  webhooksPending: webhooks.pendingCount(),
  webhooksDelivered: delivered.filter((d) => d.status !== null && d.status < 300).length
})

/** The `count` of a bulk creation, or the answer refusing it. */
export const bulkCount = (b: Record<string, unknown>): number | AdminAnswer => {
  const count = typeof b.count === "number" ? Math.floor(b.count) : NaN
  return count >= 1 && count <= 10000 ? count : bad("count must be between 1 and 10000")
}

/**
 * `POST <records>/bulk {count, template}`: `count` records made with `create` from `template` once
 * `invalid` finds nothing wrong with it (a refusal comes before the count's); answers their ids.
 */
export const bulkCreate = (
  b: Record<string, unknown>,
  invalid: (template: Record<string, unknown>) => string | null,
  create: (template: Record<string, unknown>) => unknown
): AdminAnswer => {
  const template = asObject(b.template)
  const refused = invalid(template)
  if (refused) return bad(refused)
  const count = bulkCount(b)
  if (typeof count !== "number") return count
  return ok({ ids: Array.from({ length: count }, () => create(template)) })
}

/** `POST churn {<field>}`: how many open orders to edit after each answered list request. */
export const churnRoute = (b: Record<string, unknown>, field: string, set: (n: number) => number): AdminAnswer => {
  const value = b[field]
  if (typeof value !== "number" || value < 0) return bad(`${field} must be a non-negative number`)
  return ok({ [field]: set(Math.floor(value)) })
}

/** Runs an admin change; an error it throws (a refused edit) is answered 400 with its message. */
export const attempt = (run: () => AdminAnswer): AdminAnswer => {
  try {
    return run()
  } catch (error) {
    return bad(error instanceof Error ? error.message : String(error))
  }
}

/** `/__sim/<noun>s/:id[/:action]`: read, edit, or act on one stored record. */
export interface RecordRoutes<T> {
  readonly noun: string
  readonly find: (id: string) => T | undefined
  readonly view: (record: T) => unknown
  /** What is wrong with a `PATCH` body (answered 400 before `edit` runs); null when nothing is. */
  readonly invalid?: (b: Record<string, unknown>) => string | null
  readonly edit: (record: T, b: Record<string, unknown>) => AdminAnswer
  /** The answer to `POST …/:id/<action>`, or null for an action the simulator does not know. */
  readonly act: (action: string | undefined, record: T, b: Record<string, unknown>) => AdminAnswer | null
}

export const recordRoute = <T>(
  routes: RecordRoutes<T>,
  method: string,
  id: string,
  action: string | undefined,
  body: unknown
): AdminAnswer => {
  const record = routes.find(id)
  if (record === undefined) return bad(`${routes.noun} ${id} does not exist`, 404)
  const b = asObject(body)
  if (method === "GET" && action === undefined) return ok(routes.view(record))
  if (method === "PATCH" && action === undefined) {
    const invalid = routes.invalid?.(b)
    return invalid ? bad(invalid) : routes.edit(record, b)
  }
  if (method !== "POST") return bad(`${method} is not supported here`, 405)
  return routes.act(action, record, b) ?? bad(`unknown ${routes.noun} action ${action ?? ""}`, 404)
}

/** What a simulator's admin router adds to the shared routes. */
export interface OwnAdminRoutes {
  /** The path's segments as the simulator reads them (aliases, decoding); null when it cannot be read. */
  readonly segments?: (path: string) => Array<string> | null
  /** The simulator's fixed routes (`"<METHOD> <path>"`); null when `route` is not one. */
  readonly fixed: (route: string, b: Record<string, unknown>, body: unknown) => AdminAnswer | null | Promise<AdminAnswer | null>
  /** Routes with ids in them, tried last; null when none matches. */
  readonly byPath: (method: string, parts: ReadonlyArray<string>, body: unknown) => AdminAnswer | null | Promise<AdminAnswer | null>
}

/** The whole `/__sim/` router: the shared routes, then the simulator's fixed ones, then those with ids, else 404. */
export const routeAdmin = <R extends FaultRule<string>, S extends QueueSettings & Partial<RetrySettings>>(
  shared: SharedAdminParts<R, S>,
  own: OwnAdminRoutes
) =>
async (method: string, path: string, body: unknown): Promise<AdminAnswer> => {
  const parts = (own.segments ?? adminPathParts)(path)
  const missing = bad(`no admin route ${method} ${path}`, 404)
  if (parts === null) return missing
  const route = `${method} ${parts.join("/")}`
  return (await sharedAdminRoute(shared, route, body)) ?? (await own.fixed(route, asObject(body), body)) ??
    (await own.byPath(method, parts, body)) ?? missing
}

/** Whether `parts` is `<collection>/<numeric id>[/<action>]`. */
export const isRecordPath = (parts: ReadonlyArray<string>, collection: string): parts is [string, string, ...Array<string>] =>
  parts[0] === collection && parts[1] !== undefined && /^\d+$/.test(parts[1]) && parts.length <= 3
