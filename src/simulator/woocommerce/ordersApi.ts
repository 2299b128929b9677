import {
  invalidParams,
  missingParams,
  ok,
  orderRoutes,
  truthy,
  withOrder,
  wooError,
  type ApiContext,
  type ApiRequest,
  type Route
} from "./api.js"
import { isOrderStatus, orderStatuses, type StoredOrder } from "./model.js"
import { isParamErrors, parseListQuery, selectOrders } from "./query.js"
import type { OrderPatch } from "./store.js"
import { noteView, orderView, refundView } from "./views.js"

/**
 * `wc/v3` orders, order notes and order refunds. Unknown ids answer WooCommerce's 404 codes
 * (`woocommerce_rest_shop_order_invalid_id` on the order routes, `woocommerce_rest_order_invalid_id`
 * on its sub-resources).
 */

const invalidOrder = wooError(404, "woocommerce_rest_shop_order_invalid_id", "Invalid ID.")
const invalidParentOrder = wooError(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.")

const listOrders = (ctx: ApiContext, request: ApiRequest) => {
  const query = parseListQuery(request.params)
  if (isParamErrors(query)) return invalidParams(query)
  const selection = selectOrders(ctx.state.orders.values(), query, { mode: ctx.dateBounds, gmtOffsetHours: ctx.state.gmtOffsetHours })
  const base = new URL(`${ctx.view.siteUrl}/wp-json/wc/v3/orders`)
  for (const [k, v] of request.params) if (k !== "consumer_key" && k !== "consumer_secret") base.searchParams.append(k, v)
  const link = (page: number, rel: string) => {
    const url = new URL(base)
    url.searchParams.set("page", String(page))
    return `<${url.toString()}>; rel="${rel}"`
  }
  const links = [
    ...(selection.page > 1 ? [link(Math.min(selection.page - 1, Math.max(selection.totalPages, 1)), "prev")] : []),
    ...(selection.totalPages > selection.page ? [link(selection.page + 1, "next")] : [])
  ]
  const answer = ok(selection.rows.map((o) => orderView(ctx.view, o)), 200, {
    "X-WP-Total": String(selection.total),
    "X-WP-TotalPages": String(selection.totalPages),
    ...(links.length > 0 ? { Link: links.join(", ") } : {})
  })
  if (ctx.state.churnPerListQuery > 0) ctx.state.churn(ctx.state.churnPerListQuery)
  return answer
}

const asPatch = (body: Record<string, unknown>): OrderPatch | string => {
  const patch: OrderPatch = {}
  if (body.status !== undefined) {
    if (!isOrderStatus(body.status)) return `status is not one of ${orderStatuses.join(", ")}.`
    patch.status = body.status
  }
  if (typeof body.customer_note === "string") patch.customer_note = body.customer_note
  if (typeof body.billing === "object" && body.billing !== null) patch.billing = body.billing as OrderPatch["billing"] & object
  if (typeof body.shipping === "object" && body.shipping !== null) patch.shipping = body.shipping as OrderPatch["shipping"] & object
  if (body.meta_data !== undefined) {
    if (!Array.isArray(body.meta_data)) return "meta_data is not of type array."
    const entries: NonNullable<OrderPatch["meta_data"]> = []
    for (const [index, entry] of body.meta_data.entries()) {
      const e = entry as Record<string, unknown>
      if (typeof e !== "object" || e === null || typeof e.key !== "string") return `meta_data[${index}][key] is not of type string.`
      entries.push({ key: e.key, value: e.value ?? "", ...(typeof e.id === "number" ? { id: e.id } : {}) })
    }
    patch.meta_data = entries
  }
  return patch
}

const updateOrder = (ctx: ApiContext, order: StoredOrder, request: ApiRequest) => {
  const patch = asPatch(request.body)
  if (typeof patch === "string") {
    const param = patch.split(" ")[0]!.replace(/\[.*$/, "")
    return invalidParams({ [param]: { code: "rest_invalid_param", message: patch } })
  }
  ctx.state.editOrder(order, patch)
  return ok(orderView(ctx.view, order))
}

const deleteOrder = (ctx: ApiContext, order: StoredOrder, request: ApiRequest) => {
  const view = orderView(ctx.view, order)
  if (truthy(request.params.get("force"))) {
    ctx.state.orders.delete(order.id)
    return ok(view)
  }
  if (order.status === "trash") return wooError(410, "woocommerce_rest_already_trashed", "The order has already been deleted.")
  ctx.state.trash(order)
  return ok(orderView(ctx.view, order))
}

const notesOf = (ctx: ApiContext, order: StoredOrder, request: ApiRequest) => {
  const type = request.params.get("type") ?? "any"
  const notes = order.notes
    .filter((n) => (type === "customer" ? n.customerNote : type === "internal" ? !n.customerNote : true))
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
  return ok(notes.map((n) => noteView(ctx.view, order, n)))
}

const createNote = (ctx: ApiContext, order: StoredOrder, request: ApiRequest) => {
  const text = request.body.note
  if (typeof text !== "string" || text.trim() === "") return missingParams(["note"])
  const note = ctx.state.addNote(order, text, truthy(request.body.customer_note), truthy(request.body.added_by_user) ? "admin" : "system")
  return ok(noteView(ctx.view, order, note), 201, {
    Location: `${ctx.view.siteUrl}/wp-json/wc/v3/orders/${order.id}/notes/${note.id}`
  })
}

export const ordersRoute = (ctx: ApiContext, method: string, path: string): Route | null => {
  const read = method === "GET"
  const write = method === "PUT" || method === "POST" || method === "PATCH"
  if (path === "/wc/v3/orders" && read) {
    return { operation: "orders.list", access: "list", handle: (r) => listOrders(ctx, r) }
  }
  let m = /^\/wc\/v3\/orders\/(\d+)$/.exec(path)
  if (m) {
    const route = orderRoutes(ctx, m[1]!, invalidOrder)
    if (read) return route("orders.get", "view", (o) => ok(orderView(ctx.view, o)))
    if (write) return route("orders.update", "edit", (o, r) => updateOrder(ctx, o, r))
    if (method === "DELETE") return route("orders.delete", "delete", (o, r) => deleteOrder(ctx, o, r))
    return null
  }
  m = /^\/wc\/v3\/orders\/(\d+)\/notes$/.exec(path)
  if (m) {
    const route = orderRoutes(ctx, m[1]!, invalidParentOrder)
    if (read) return route("notes.list", "list", (o, r) => notesOf(ctx, o, r))
    if (method === "POST") return route("notes.create", "create", (o, r) => createNote(ctx, o, r))
    return null
  }
  m = /^\/wc\/v3\/orders\/(\d+)\/notes\/(\d+)$/.exec(path)
  if (m) {
    const [id, noteId] = [m[1]!, Number(m[2])]
    const withNote = (run: (o: StoredOrder, index: number) => ReturnType<Route["handle"]>) =>
      withOrder(ctx, id, (o) => {
        const index = o.notes.findIndex((n) => n.id === noteId)
        return index < 0 ? wooError(404, "woocommerce_rest_invalid_id", "Invalid resource ID.") : run(o, index)
      }, invalidParentOrder)
    if (read) return { operation: "notes.get", access: "view", handle: () => withNote((o, i) => ok(noteView(ctx.view, o, o.notes[i]!))) }
    if (method === "DELETE") {
      return {
        operation: "notes.delete",
        access: "delete",
        handle: (r) =>
          truthy(r.params.get("force"))
            ? withNote((o, i) => ok(noteView(ctx.view, o, o.notes.splice(i, 1)[0]!)))
            : wooError(501, "woocommerce_rest_trash_not_supported", "Webhooks do not support trashing.")
      }
    }
    return null
  }
  m = /^\/wc\/v3\/orders\/(\d+)\/refunds$/.exec(path)
  if (m && read) {
    return orderRoutes(ctx, m[1]!, invalidParentOrder)(
      "refunds.list",
      "list",
      (o) => ok([...o.refunds].reverse().map((r) => refundView(ctx.view, o, r)))
    )
  }
  return null
}
