/**
 * Shopify's own access metadata in its published introspection result
 * (`requiredAccess` on types, fields and mutations; `isProtected`,
 * `protectedSubject`, `protectedContent` on protected customer data), which
 * graphql-js's `buildClientSchema` does not keep: read here from the raw JSON,
 * and `requiredAccess`'s sentences turned into scope requirements.
 */
import { isRecord, type Json } from "../OpenApiDocument.js"

export interface FieldAccess {
  readonly requiredAccess?: string
  readonly protectedData?: { readonly subject: string; readonly content: string }
}

export interface AccessIndex {
  /** A type's `requiredAccess` sentence, if it has one. */
  readonly ofType: (typeName: string) => string | undefined
  readonly ofField: (typeName: string, fieldName: string) => FieldAccess
  /** A type's and its fields' descriptions, where Shopify states access it does not put in `requiredAccess`. */
  readonly descriptionOf: (typeName: string, fieldName?: string) => string
}

/**
 * What a sentence asks: one of some scopes (a conjunction is several of these), the access that
 * mutating the owner resource needs (`metafieldsSet`), or a sentence this reader does not understand.
 */
export type Requirement =
  | { readonly _tag: "AnyOf"; readonly scopes: ReadonlyArray<string> }
  | { readonly _tag: "OwnerResource" }
  | { readonly _tag: "Unreadable"; readonly text: string }

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value : undefined)

/** The access metadata of an introspection result (`{ data: { __schema } }` or `{ __schema }`). */
export const accessIndexOf = (introspection: unknown): AccessIndex => {
  const root = isRecord(introspection) && isRecord(introspection["data"]) ? introspection["data"] : introspection
  const schema = isRecord(root) ? root["__schema"] : undefined
  const types = isRecord(schema) && Array.isArray(schema["types"]) ? schema["types"].filter(isRecord) : []
  const typeAccess = new Map<string, string>()
  const fields = new Map<string, FieldAccess>()
  const descriptions = new Map<string, string>()
  for (const type of types) {
    const name = String(type["name"])
    const access = text(type["requiredAccess"])
    if (access !== undefined) typeAccess.set(name, access)
    descriptions.set(name, text(type["description"]) ?? "")
    for (const field of Array.isArray(type["fields"]) ? type["fields"].filter(isRecord) : []) {
      const key = `${name}.${String(field["name"])}`
      descriptions.set(key, text(field["description"]) ?? "")
      const requiredAccess = text(field["requiredAccess"])
      const isProtected = field["isProtected"] === true
      if (requiredAccess === undefined && !isProtected) continue
      fields.set(key, {
        ...(requiredAccess === undefined ? {} : { requiredAccess }),
        ...(isProtected
          ? { protectedData: { subject: text(field["protectedSubject"]) ?? "?", content: text(field["protectedContent"]) ?? "?" } }
          : {})
      })
    }
  }
  return {
    ofType: (typeName) => typeAccess.get(typeName),
    ofField: (typeName, fieldName) => fields.get(`${typeName}.${fieldName}`) ?? {},
    descriptionOf: (typeName, fieldName) => descriptions.get(fieldName === undefined ? typeName : `${typeName}.${fieldName}`) ?? ""
  }
}

const SCOPE = /`([a-z][a-z0-9_]*)`/g

/**
 * The requirements of a `requiredAccess` sentence. What follows "Also:" is about the staff member's
 * permissions or the shop, not the app's scopes. "`a` access scope, `b` access scope or `c` access
 * scope" is one of them; "`a` access scope and (`b` … or `c` …)" is `a`, and one of `b` or `c`.
 */
export const parseRequiredAccess = (sentence: string): ReadonlyArray<Requirement> => {
  const main = sentence.split(/\bAlso:/)[0]!.trim()
  if (/same access level needed to mutate the owner resource/i.test(main)) return [{ _tag: "OwnerResource" }]
  if (/\bfor (queries|mutations)\b|\buser permission\b/i.test(main)) {
    // "read_x for queries and … for mutations", "… or a user permission": not a plain list of scopes.
    return [{ _tag: "Unreadable", text: sentence }]
  }
  const parts = main.split(/\s+and\s+/)
  const requirements = parts.map((part): Requirement => {
    const scopes = [...part.matchAll(SCOPE)].map((m) => m[1]!)
    return scopes.length === 0 ? { _tag: "Unreadable", text: sentence } : { _tag: "AnyOf", scopes }
  })
  return requirements
}

/** The resource types a value names by Shopify global id (`gid://shopify/Order/1` → Order), anywhere inside it. */
export const gidTypesIn = (value: unknown, found = new Set<string>()): Set<string> => {
  if (typeof value === "string") {
    const match = /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(value)
    if (match) found.add(match[1]!)
  } else if (Array.isArray(value)) value.forEach((v) => gidTypesIn(v, found))
  else if (isRecord(value)) Object.values(value as Json).forEach((v) => gidTypesIn(v, found))
  return found
}

/** The mutation that mutates a resource type (`Order` → `orderUpdate`), whose access mutating it needs. */
export const updateMutationOf = (typeName: string): string => `${typeName.charAt(0).toLowerCase()}${typeName.slice(1)}Update`
