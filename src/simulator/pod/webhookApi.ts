// Webhook subscriptions (v3): create, list, delete.
import { canonicalTopic, TOPIC_ALIASES, WEBHOOK_STATUSES, WEBHOOK_TOPICS, WEBHOOK_VERSIONS, isOneOf } from "./enums.js"
import { matchesAny, paginate, readArray, readEnumArray, readPaging } from "./listing.js"
import type { Route, RouteContext } from "./routes.js"
import type { SimState, WebhookRecord } from "./state.js"
import { Issues, readText } from "./validation.js"
import type { Json, SimResponse } from "./wire.js"
import { envelopeError, errorBody, invalidArgument, iso, isRecord, notFound, success } from "./wire.js"

const ALL_TOPICS: ReadonlyArray<string> = [...WEBHOOK_TOPICS, ...Object.keys(TOPIC_ALIASES)]

/**
 * Enums are "string or number" on the wire: the create body may name a status, topic or
 * version by its number (STATUS_ACTIVE=2, TOPIC_ORDER_COMPLETED=2 … TOPIC_PRODUCT_OUT_OF_STOCK=8,
 * VERSION_V1=2, VERSION_V3=3). The service answers with the names.
 */
const byNumber = <T extends string>(names: ReadonlyArray<T>, value: unknown): unknown =>
  typeof value === "number" && Number.isInteger(value) ? names[value - 2] ?? value : value

export const webhookView = (webhook: WebhookRecord, teamId: string): Json => ({
  webhook_id: webhook.id,
  // The published answer names the topic by its enum, whichever alias created it; it has no `name`.
  topic: webhook.canonicalTopic,
  status: webhook.status,
  delivery_url: webhook.deliveryUrl,
  version: webhook.version,
  created_at: iso(webhook.createdAt),
  updated_at: iso(webhook.updatedAt),
  team_id: teamId,
  store_id: webhook.storeId ?? undefined
})

const validDeliveryUrl = (text: string, allowHttp: boolean): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "https:" || (allowHttp && url.protocol === "http:")
  } catch {
    return false
  }
}

const createHandler = (state: SimState, allowHttp: boolean) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const outer = isRecord(context.body) ? context.body : {}
  const body = isRecord(outer["data"]) ? outer["data"] : outer
  const status = byNumber(WEBHOOK_STATUSES, body["status"])
  if (!isOneOf(WEBHOOK_STATUSES, status)) issues.add("status", `must be one of ${WEBHOOK_STATUSES.join(", ")}`)
  const topic = byNumber(WEBHOOK_TOPICS, body["topic"])
  const canonical = typeof topic === "string" ? canonicalTopic(topic) : undefined
  if (canonical === undefined) issues.add("topic", `must be one of ${ALL_TOPICS.join(", ")}`)
  const version = byNumber(WEBHOOK_VERSIONS, body["version"])
  if (!isOneOf(WEBHOOK_VERSIONS, version)) issues.add("version", `must be one of ${WEBHOOK_VERSIONS.join(", ")}`)
  const name = readText(issues, body["name"], "name", 0, 255, false)
  const url = readText(issues, body["delivery_url"], "delivery_url", 1, 2048, true)
  const storeId = readText(issues, body["store_id"], "store_id", 0, 255, false)
  if (!issues.empty) return invalidArgument(issues.list)
  if (url === undefined || !validDeliveryUrl(url, allowHttp)) {
    return errorBody(400, "INVALID_ARGUMENT", "invalid delivery URL: it must be an absolute HTTPS URL", [{
      field: "delivery_url",
      issue: "invalid delivery URL"
    }])
  }
  const store = storeId === undefined || storeId === "" ? null : storeId
  for (const existing of state.webhooks.values()) {
    if (existing.canonicalTopic === canonical && existing.deliveryUrl === url && existing.storeId === store) {
      return envelopeError("duplicate webhook: this topic is already delivered to this URL")
    }
  }
  const now = state.now()
  const webhook: WebhookRecord = {
    id: state.newId(),
    topic: topic as string,
    canonicalTopic: canonical as NonNullable<typeof canonical>,
    status: status as string,
    name: name ?? null,
    version: version as string,
    deliveryUrl: url,
    storeId: store,
    createdAt: now,
    updatedAt: now
  }
  state.webhooks.set(webhook.id, webhook)
  return success(webhookView(webhook, state.teamId))
}

const listHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const q = context.query
  const paging = readPaging(issues, q)
  const statuses = readEnumArray(issues, q, "filter.statuses", WEBHOOK_STATUSES)
  const storeIds = readArray(issues, q, "filter.store_ids")
  const teamIds = readArray(issues, q, "filter.team_ids")
  const topics = readEnumArray(issues, q, "filter.topics", ALL_TOPICS)
  const versions = readEnumArray(issues, q, "filter.versions", WEBHOOK_VERSIONS)
  const ids = readArray(issues, q, "filter.webhook_ids")
  if (!issues.empty) return invalidArgument(issues.list)
  const wantedTopics = topics?.map((t) => canonicalTopic(t))
  const matching = [...state.webhooks.values()].filter((w) =>
    matchesAny(statuses, w.status) &&
    (storeIds === undefined || (w.storeId !== null && storeIds.includes(w.storeId))) &&
    matchesAny(teamIds, state.teamId) &&
    (wantedTopics === undefined || wantedTopics.includes(w.canonicalTopic)) &&
    matchesAny(versions, w.version) &&
    matchesAny(ids, w.id)
  )
  const { page, paging: info } = paginate(matching, paging, state.seed)
  // Protobuf JSON leaves an empty list out: an empty answer has no `data` at all.
  if (page.length === 0) return { status: 200, body: { status: "success", message: "OK", paging: { ...info } } }
  return success(page.map((w) => webhookView(w, state.teamId)), info)
}

const deleteHandler = (state: SimState) => (context: RouteContext): SimResponse => {
  const id = context.params["webhook_id"] ?? ""
  if (id.length > 255) return invalidArgument([{ field: "webhook_id", issue: "must be 1 to 255 characters" }])
  const webhook = state.webhooks.get(id)
  if (webhook === undefined) return notFound("webhook", "webhook_id", id)
  state.webhooks.delete(id)
  return success(webhookView(webhook, state.teamId))
}

export const webhookRoutes = (state: SimState, allowHttp: boolean): ReadonlyArray<Route> => [
  { method: "GET", pattern: "/api/v3/webhooks", auth: "v3", handle: listHandler(state) },
  { method: "POST", pattern: "/api/v3/webhooks", auth: "v3", handle: createHandler(state, allowHttp) },
  { method: "DELETE", pattern: "/api/v3/webhooks/:webhook_id", auth: "v3", handle: deleteHandler(state) }
]
