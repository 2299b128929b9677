/**
 * JSON Patch (RFC 6902) over a parsed JSON document, as Etsy's overlay of
 * 2026-05-10 is written: the operations in order on a copy, every one that
 * cannot apply an error naming it (no library in the lockfile does this, and
 * the RFC is six operations over JSON Pointers, RFC 6901).
 */

export interface PatchOperation {
  readonly op: "add" | "remove" | "replace" | "move" | "copy" | "test"
  readonly path: string
  readonly value?: unknown
  readonly from?: string
}

type Container = Record<string, unknown> | Array<unknown>

const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null

/** The reference tokens of a JSON Pointer ("" is the whole document). */
export const pointerTokens = (pointer: string): Array<string> => {
  if (pointer === "") return []
  if (!pointer.startsWith("/")) throw new Error(`not a JSON Pointer: ${JSON.stringify(pointer)}`)
  return pointer.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))
}

const childOf = (parent: unknown, token: string, pointer: string): unknown => {
  if (Array.isArray(parent) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < parent.length) return parent[Number(token)]
  if (isContainer(parent) && !Array.isArray(parent) && Object.hasOwn(parent, token)) return parent[token]
  throw new Error(`${pointer}: nothing at ${JSON.stringify(token)}`)
}

/** The value a pointer names; throws when there is none. */
export const valueAt = (doc: unknown, pointer: string): unknown =>
  pointerTokens(pointer).reduce((node, token) => childOf(node, token, pointer), doc)

/** The container that holds the pointer's last token, and that token. */
const parentOf = (doc: unknown, pointer: string): { readonly parent: Container; readonly key: string } => {
  const tokens = pointerTokens(pointer)
  const key = tokens.pop()
  if (key === undefined) throw new Error("the whole document cannot be the target here")
  const parent = tokens.reduce((node, token) => childOf(node, token, pointer), doc)
  if (!isContainer(parent)) throw new Error(`${pointer}: the parent is not an object or array`)
  return { parent, key }
}

const arrayIndex = (array: Array<unknown>, key: string, pointer: string, adding: boolean): number => {
  if (adding && key === "-") return array.length
  const max = adding ? array.length : array.length - 1
  if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) > max) throw new Error(`${pointer}: ${JSON.stringify(key)} is not an index of the array`)
  return Number(key)
}

const add = (doc: unknown, pointer: string, value: unknown): unknown => {
  if (pointer === "") return value
  const { parent, key } = parentOf(doc, pointer)
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, true), 0, value)
  else parent[key] = value
  return doc
}

const remove = (doc: unknown, pointer: string): unknown => {
  const { parent, key } = parentOf(doc, pointer)
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, false), 1)
  else if (Object.hasOwn(parent, key)) delete parent[key]
  else throw new Error(`${pointer}: nothing to remove`)
  return doc
}

const replace = (doc: unknown, pointer: string, value: unknown): unknown => {
  if (pointer === "") return value
  valueAt(doc, pointer)
  const { parent, key } = parentOf(doc, pointer)
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, pointer, false)] = value
  else parent[key] = value
  return doc
}

const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  }
  if (!isContainer(a) || !isContainer(b)) return false
  const x = a as Record<string, unknown>, y = b as Record<string, unknown>
  const keys = Object.keys(x)
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && deepEqual(x[k], y[k]))
}

const step = (doc: unknown, operation: PatchOperation): unknown => {
  switch (operation.op) {
    case "add":
      return add(doc, operation.path, structuredClone(operation.value))
    case "remove":
      return remove(doc, operation.path)
    case "replace":
      return replace(doc, operation.path, structuredClone(operation.value))
    case "move": {
      const from = operation.from ?? ""
      if (operation.path.startsWith(`${from}/`)) throw new Error(`cannot move ${from} into its own child ${operation.path}`)
      const value = valueAt(doc, from)
      return add(remove(doc, from), operation.path, value)
    }
    case "copy":
      return add(doc, operation.path, structuredClone(valueAt(doc, operation.from ?? "")))
    case "test":
      if (!deepEqual(valueAt(doc, operation.path), operation.value)) throw new Error(`${operation.path}: test failed`)
      return doc
  }
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"])

/** Reads a patch (an array of operations, or an object with a `patch` array as Etsy's overlay file is). */
export const readPatch = (json: unknown): ReadonlyArray<PatchOperation> => {
  const list: unknown = Array.isArray(json) ? json : isContainer(json) && !Array.isArray(json) ? json["patch"] : undefined
  if (!Array.isArray(list)) throw new Error("not a JSON Patch: expected an array of operations (or an object with one under `patch`)")
  return list.map((entry: unknown, i) => {
    const o = isContainer(entry) && !Array.isArray(entry) ? entry : {}
    if (typeof o["op"] !== "string" || !OPS.has(o["op"]) || typeof o["path"] !== "string") {
      throw new Error(`operation ${i}: expected { op: add|remove|replace|move|copy|test, path }`)
    }
    if ((o["op"] === "move" || o["op"] === "copy") && typeof o["from"] !== "string") {
      throw new Error(`operation ${i}: ${o["op"]} needs from`)
    }
    if (["add", "replace", "test"].includes(o["op"]) && !Object.hasOwn(o, "value")) {
      throw new Error(`operation ${i}: ${o["op"]} needs value`)
    }
    return o as unknown as PatchOperation
  })
}

/** The document with every operation applied in order, on a copy; an operation that cannot apply throws, naming it. */
export const applyPatch = (document: unknown, operations: ReadonlyArray<PatchOperation>): unknown =>
  operations.reduce<unknown>((doc, operation, i) => {
    try {
      return step(doc, operation)
    } catch (error) {
      throw new Error(`patch operation ${i} (${operation.op} ${operation.path}): ${(error as Error).message}`, { cause: error })
    }
  }, structuredClone(document))
