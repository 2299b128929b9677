/**
 * Reading an OpenAPI document and a request against it, without a
 * validator: JSON pointers and local `$ref`s, path template matching, and the
 * coercion of query strings into the values their schemas describe.
 */

export type Json = Record<string, unknown>
export const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

export const escapeToken = (token: string) => token.replaceAll("~", "~0").replaceAll("/", "~1")
export const pointer = (...tokens: ReadonlyArray<string>) => `#/${tokens.map(escapeToken).join("/")}`
export const at = (doc: unknown, ptr: string): unknown =>
  ptr.slice(2).split("/").filter((t) => t !== "").reduce<unknown>(
    (
      node,
      token
    ) => (isRecord(node) || Array.isArray(node) ? (node as Json)[token.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined),
    doc
  )
/** The pointer an object at `ptr` stands for, following local `$ref`s (response, parameter or schema objects). */
export const follow = (doc: unknown, ptr: string): string => {
  let current = ptr
  for (let hops = 0; hops < 10; hops++) {
    const node = at(doc, current)
    if (!isRecord(node) || typeof node["$ref"] !== "string" || !node["$ref"].startsWith("#/")) return current
    current = node["$ref"]
  }
  return current
}

/** A copy without OpenAPI 3.0's `nullable` (which Ajv would otherwise reject beside a bare `$ref`), and how many went. */
export const withoutNullable = (value: unknown): { readonly value: unknown; readonly dropped: number } => {
  let dropped = 0
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (!isRecord(node)) return node
    const out: Json = {}
    for (const [key, child] of Object.entries(node)) {
      if (key === "nullable" && typeof child === "boolean") dropped++
      else out[key] = walk(child)
    }
    return out
  }
  return { value: walk(value), dropped }
}

/**
 * A copy where OpenAPI 3.0's `nullable: true` is said in JSON Schema (`anyOf` the schema or null,
 * which holds beside a `$ref` or an `allOf` too), and how many were rewritten; `nullable: false` goes.
 */
export const nullableAsJsonSchema = (value: unknown): { readonly value: unknown; readonly rewritten: number } => {
  let rewritten = 0
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (!isRecord(node)) return node
    const out: Json = {}
    for (const [key, child] of Object.entries(node)) if (!(key === "nullable" && typeof child === "boolean")) out[key] = walk(child)
    if (node["nullable"] !== true) return out
    rewritten++
    // Documentation keywords stay outside, so the rewritten schema reads as the original did.
    const { description, default: fallback, example, ...schema } = out
    return {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      ...(example === undefined ? {} : { example }),
      anyOf: [schema, { type: "null" }]
    }
  }
  return { value: walk(value), rewritten }
}

/** Every `format` the document names. */
export const formatsIn = (node: unknown, found = new Set<string>()): Set<string> => {
  if (Array.isArray(node)) node.forEach((child) => formatsIn(child, found))
  else if (isRecord(node)) {
    for (const [key, child] of Object.entries(node)) {
      if (key === "format" && typeof child === "string") found.add(child)
      else formatsIn(child, found)
    }
  }
  return found
}

/** A query parameter's schema and, for an array, its items' schema (`$ref`s followed). */
export interface QuerySchema {
  readonly schema: unknown
  readonly items: unknown
}

/** Query values as the schema reads them: numbers and booleans where it wants them, repeated keys as arrays. */
export const coerceQuery = (query: string, schemaOf: (name: string) => QuerySchema | undefined): Record<string, unknown> => {
  const grouped = new Map<string, Array<string>>()
  for (const [key, value] of new URLSearchParams(query)) grouped.set(key, [...(grouped.get(key) ?? []), value])
  const out: Record<string, unknown> = {}
  for (const [name, raw] of grouped) {
    const declared = schemaOf(name)
    if (declared !== undefined && typesOf(declared.schema).includes("array")) out[name] = raw.map((v) => coerceScalar(v, declared.items))
    else out[name] = raw.length === 1 ? coerceScalar(raw[0]!, declared?.schema) : raw.map((v) => coerceScalar(v, declared?.schema))
  }
  return out
}

/** The types a schema allows, its `anyOf` members' too (OpenAPI 3.0's `nullable` becomes one). */
const typesOf = (schema: unknown): ReadonlyArray<string> => {
  if (!isRecord(schema)) return []
  const type = schema["type"]
  const own = typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : []
  const members = Array.isArray(schema["anyOf"]) ? schema["anyOf"].flatMap(typesOf) : []
  return [...own, ...members]
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/
/** A query or path value as its schema reads it: a number or a boolean where it wants one. */
export const coerceScalar = (raw: string, schema: unknown): unknown => {
  const types = typesOf(schema)
  if ((types.includes("integer") || types.includes("number")) && NUMBER.test(raw)) return Number(raw)
  if (types.includes("boolean") && (raw === "true" || raw === "false")) return raw === "true"
  return raw
}

export interface Segment {
  readonly literal?: string
  readonly param?: string
}

/** Segments after the leading slash; a trailing slash leaves an empty last segment, which no template matches. */
const splitPath = (path: string) => path.replace(/^\//, "").split("/")
export const toSegments = (template: string): ReadonlyArray<Segment> =>
  splitPath(template).map((s) => (/^\{[^}]+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s }))

/**
 * The path template a concrete path matches, concrete segments winning over
 * templated ones at the first place they differ (`/orders/draft` is not
 * `/orders/{order_id}`), with its path parameters.
 */
export const matchPath = (
  paths: ReadonlyArray<{ readonly template: string; readonly segments: ReadonlyArray<Segment> }>,
  path: string
): { readonly template: string; readonly params: Record<string, string> } | undefined => {
  const parts = splitPath(path)
  let best: { template: string; params: Record<string, string>; rank: string } | undefined
  for (const candidate of paths) {
    if (candidate.segments.length !== parts.length) continue
    const params: Record<string, string> = {}
    let rank = ""
    const fits = candidate.segments.every((segment, i) => {
      const part = parts[i]!
      if (segment.literal !== undefined) {
        rank += "1"
        return segment.literal === part
      }
      rank += "0"
      params[segment.param!] = safeDecode(part)
      return part !== ""
    })
    if (fits && (best === undefined || rank > best.rank)) best = { template: candidate.template, params, rank }
  }
  return best && { template: best.template, params: best.params }
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
