import { invalidParams, missingParams, ok, truthy, wooError, type ApiContext, type ApiRequest, type Route } from "./api.js"
import type { OrderTopic } from "./store.js"
import { webhookApiVersions, webhookTopics, webhookView, type WebhookApiVersion } from "./webhooks.js"

/** `wc/v3/webhooks`: list, create (which pings the delivery URL), read and delete order webhooks. */

const createWebhook = async (ctx: ApiContext, request: ApiRequest) => {
  const { topic, delivery_url: deliveryUrl, secret, name, api_version: apiVersion } = request.body
  const missing = [...(topic === undefined ? ["topic"] : []), ...(deliveryUrl === undefined ? ["delivery_url"] : [])]
  if (missing.length > 0) return missingParams(missing)
  if (!webhookTopics.includes(topic as OrderTopic)) {
    return invalidParams({
      topic: { code: "rest_invalid_param", message: `topic must be one of ${webhookTopics.join(", ")} in this simulator.` }
    })
  }
  if (typeof deliveryUrl !== "string" || !/^https?:\/\//.test(deliveryUrl)) {
    return invalidParams({ delivery_url: { code: "rest_invalid_param", message: "delivery_url is not of type uri." } })
  }
  if (apiVersion !== undefined && !webhookApiVersions.includes(apiVersion as WebhookApiVersion)) {
    return invalidParams({
      api_version: { code: "rest_invalid_param", message: `api_version is not one of ${webhookApiVersions.join(", ")}.` }
    })
  }
  const hook = await ctx.webhooks.create({
    topic: topic as OrderTopic,
    deliveryUrl,
    ...(typeof secret === "string" && secret !== "" ? { secret } : {}),
    ...(typeof name === "string" ? { name } : {}),
    ...(apiVersion === undefined ? {} : { apiVersion: apiVersion as WebhookApiVersion })
  })
  return ok(webhookView(ctx.view.siteUrl, hook), 201)
}

export const webhooksRoute = (ctx: ApiContext, method: string, path: string): Route | null => {
  if (path === "/wc/v3/webhooks") {
    if (method === "GET") {
      return {
        operation: "webhooks.list",
        access: "list",
        handle: () => ok(ctx.webhooks.list().map((h) => webhookView(ctx.view.siteUrl, h)))
      }
    }
    if (method === "POST") return { operation: "webhooks.create", access: "create", handle: (r) => createWebhook(ctx, r) }
    return null
  }
  const m = /^\/wc\/v3\/webhooks\/(\d+)$/.exec(path)
  if (!m) return null
  const id = Number(m[1])
  const invalid = wooError(404, "woocommerce_rest_webhook_invalid_id", "Invalid ID.")
  if (method === "GET") {
    return {
      operation: "webhooks.get",
      access: "view",
      handle: () => {
        const hook = ctx.webhooks.find(id)
        return hook === undefined ? invalid : ok(webhookView(ctx.view.siteUrl, hook))
      }
    }
  }
  if (method === "DELETE") {
    return {
      operation: "webhooks.delete",
      access: "delete",
      handle: (r) => {
        if (!truthy(r.params.get("force"))) {
          return wooError(501, "woocommerce_rest_trash_not_supported", "Webhooks do not support trashing.")
        }
        const hook = ctx.webhooks.remove(id)
        return hook === undefined ? invalid : ok(webhookView(ctx.view.siteUrl, hook))
      }
    }
  }
  return null
}
