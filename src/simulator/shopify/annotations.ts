import { createHash } from "node:crypto"
import { parseGid, type StoredOrder } from "./model.js"
import { splitTags, type ShopState } from "./store.js"
import { metafieldView, orderView } from "./views.js"

/** tagsAdd, tagsRemove and metafieldsSet on orders (the only owner type this shop simulates). */

const orderFor = (state: ShopState, id: string): StoredOrder | undefined => {
  const orderId = parseGid(id, "Order")
  return orderId === null ? undefined : state.orders.get(orderId)
}

const tagsChange = (state: ShopState, args: { id: string; tags: string[] }, add: boolean) => {
  const order = orderFor(state, args.id)
  if (!order) return { node: null, userErrors: [{ field: ["id"], message: "Order does not exist" }] }
  const tags = splitTags(args.tags)
  if (tags.length === 0) return { node: null, userErrors: [{ field: ["tags"], message: "Tags can't be blank" }] }
  if (tags.some((t) => t.length > 40)) {
    return { node: null, userErrors: [{ field: ["tags"], message: "Tags are too long (maximum is 40 characters)" }] }
  }
  const before = new Set(order.tags.map((t) => t.toLowerCase()))
  const next = add
    ? [
      ...order.tags,
      ...tags.filter((t, i) => !before.has(t.toLowerCase()) && tags.findIndex((u) => u.toLowerCase() === t.toLowerCase()) === i)
    ]
    : order.tags.filter((t) => !tags.some((r) => r.toLowerCase() === t.toLowerCase()))
  if (next.length !== order.tags.length) {
    order.tags = next
    state.touch(order)
  }
  return { node: orderView(state, order), userErrors: [] }
}

export const tagsAdd = (state: ShopState, args: { id: string; tags: string[] }) => tagsChange(state, args, true)
export const tagsRemove = (state: ShopState, args: { id: string; tags: string[] }) => tagsChange(state, args, false)

export interface MetafieldsSetInput {
  ownerId: string
  namespace?: string | null
  key: string
  type?: string | null
  value: string
  compareDigest?: string | null
}

interface MetafieldError {
  field: string[]
  message: string
  code: string
  elementIndex: number
}

const knownTypes = new Set([
  "single_line_text_field",
  "multi_line_text_field",
  "json",
  "boolean",
  "number_integer",
  "number_decimal",
  "date",
  "date_time",
  "url",
  "color",
  "money",
  "rich_text_field",
  "list.single_line_text_field",
  "list.number_integer"
])

const valueError = (type: string, value: string): string | null => {
  switch (type) {
    case "json":
    case "money":
    case "rich_text_field":
    case "list.single_line_text_field":
    case "list.number_integer":
      try {
        JSON.parse(value)
        return null
      } catch {
        return "Value is invalid JSON."
      }
    case "boolean":
      return value === "true" || value === "false" ? null : "Value must be true or false."
    case "number_integer":
      return /^-?\d+$/.test(value) ? null : "Value must be an integer."
    case "number_decimal":
      return /^-?\d+(\.\d+)?$/.test(value) ? null : "Value must be a decimal."
    case "single_line_text_field":
      return value.includes("\n") ? "Value must be a single line." : null
    case "url":
      return /^(https?|mailto|sms|tel):\S+$/.test(value) ? null : "Value must be a valid url."
    default:
      return null
  }
}

export const metafieldsSet = (state: ShopState, args: { metafields: MetafieldsSetInput[] }) => {
  const errors: MetafieldError[] = []
  const fail = (i: number, field: string, code: string, message: string) =>
    errors.push({ field: ["metafields", String(i), field], message, code, elementIndex: i })
  if (args.metafields.length > 25) {
    return {
      metafields: null,
      userErrors: [{
        field: ["metafields"],
        message: "Exceeded the maximum metafields input limit of 25.",
        code: "INVALID",
        elementIndex: null
      }]
    }
  }
  const resolved = args.metafields.map((input, i) => {
    const order = orderFor(state, input.ownerId)
    const namespace = input.namespace ?? "$app"
    if (!order) {
      fail(i, "ownerId", "INVALID", "Owner does not exist.")
      return null
    }
    if (namespace.length < 2 || namespace.length > 255) fail(i, "namespace", "INVALID", "Namespace must be between 2 and 255 characters.")
    if (input.key.length < 2 || input.key.length > 64 || !/^[A-Za-z0-9_-]+$/.test(input.key)) {
      fail(i, "key", "INVALID", "Key must be 2 to 64 characters of letters, digits, '-' or '_'.")
    }
    const existing = order.metafields.find((m) => m.namespace === namespace && m.key === input.key)
    const type = input.type ?? existing?.type
    if (!type) {
      fail(i, "type", "BLANK", "Type can't be blank.")
      return null
    }
    if (!knownTypes.has(type)) {
      fail(i, "type", "INVALID_TYPE", `Type '${type}' is not a valid type.`)
      return null
    }
    if (existing && existing.type !== type) fail(i, "type", "INVALID_TYPE", `Type can't be changed from '${existing.type}'.`)
    const invalid = valueError(type, input.value)
    if (invalid) fail(i, "value", "INVALID_VALUE", invalid)
    if (input.compareDigest != null) {
      const current = existing ? createHash("sha256").update(existing.value).digest("hex") : null
      if (current !== input.compareDigest) {
        fail(
          i,
          "compareDigest",
          "STALE_OBJECT",
          "The resource has been updated since it was loaded. Try again with an updated `compareDigest` value."
        )
      }
    }
    return { order, namespace, type, existing, input }
  })
  if (errors.length > 0) return { metafields: null, userErrors: errors }
  const now = state.stampNow()
  const metafields = resolved.flatMap((r) => {
    if (!r) return []
    if (r.existing) {
      r.existing.value = r.input.value
      r.existing.updatedAt = now
      return [metafieldView(r.existing)]
    }
    const created = {
      id: state.nextId("Metafield"),
      namespace: r.namespace,
      key: r.input.key,
      type: r.type,
      value: r.input.value,
      createdAt: now,
      updatedAt: now
    }
    r.order.metafields.push(created)
    return [metafieldView(created)]
  })
  return { metafields, userErrors: [] }
}
