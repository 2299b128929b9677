/**
 * The scopes the connector's documents need (their `requiredAccess`, as
 * GraphqlJudge read it) against the scopes podsync names: the list `check`
 * names them from (`ShopifyScopes.ts`, read here whatever its export is
 * called) and the README's "Going live". Pure: no I/O.
 *
 * A need is "one of these scopes"; a named scope meets it directly, or as the
 * write scope of a read scope it lists (Shopify grants read with write). A
 * named scope that meets no need is too many; an optional one (podsync works
 * without it, with less) must be one the schema speaks of where the documents
 * read (`read_all_orders` is in `Order`'s description).
 */
import { isRecord } from "../OpenApiDocument.js"
import type { ScopeNeed } from "./GraphqlJudge.js"

export interface NamedScope {
  readonly scope: string
  readonly optional: boolean
  /** What fails without it, as podsync says it. */
  readonly withoutIt?: string
}

export interface NeedGroup {
  readonly scopes: ReadonlyArray<string>
  readonly at: ReadonlyArray<string>
}

export interface ScopeFindings {
  /** Each named scope with the places that need it (empty: needed by nothing the documents send). */
  readonly named: ReadonlyArray<NamedScope & { readonly neededBy: ReadonlyArray<string>; readonly justifiedBy?: string }>
  readonly groups: ReadonlyArray<NeedGroup & { readonly metBy: ReadonlyArray<string> }>
  readonly failures: ReadonlyArray<string>
}

const SCOPE_NAME = /^(read|write)_[a-z0-9_]+$/

/** The named scopes a module exports (an array of `{ scope, optional?, required?, … }`, or a record keyed by scope). */
export const namedScopesIn = (exports: Readonly<Record<string, unknown>>): ReadonlyArray<NamedScope> => {
  const fromEntry = (entry: unknown, key?: string): NamedScope | undefined => {
    if (!isRecord(entry)) return undefined
    const scope = key !== undefined && SCOPE_NAME.test(key)
      ? key
      : Object.values(entry).find((v): v is string => typeof v === "string" && SCOPE_NAME.test(v))
    if (scope === undefined) return undefined
    const optional = typeof entry["optional"] === "boolean"
      ? entry["optional"]
      : typeof entry["required"] === "boolean"
      ? !entry["required"]
      : false
    const withoutIt = Object.entries(entry).find(([k, v]) => typeof v === "string" && /without|fails|why|missing/i.test(k))?.[1]
    return { scope, optional, ...(typeof withoutIt === "string" ? { withoutIt } : {}) }
  }
  for (const value of Object.values(exports)) {
    const entries = Array.isArray(value)
      ? value.map((entry) => fromEntry(entry))
      : isRecord(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => SCOPE_NAME.test(k))
      ? Object.entries(value).map(([k, entry]) => fromEntry(entry, k))
      : []
    if (entries.length > 0 && entries.every((e) => e !== undefined)) return entries as ReadonlyArray<NamedScope>
  }
  return []
}

/** The Shopify scopes a README names in backticks in its "Going live" section. */
export const readmeScopes = (readme: string): ReadonlyArray<string> => {
  const section = readme.split(/^## /m).find((s) => s.startsWith("Going live")) ?? ""
  return [...new Set([...section.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]!).filter((s) => SCOPE_NAME.test(s)))].sort()
}

/** Needs with the same scopes as one group, with every place that asks for it. */
export const groupNeeds = (needs: ReadonlyArray<ScopeNeed>): ReadonlyArray<NeedGroup> => {
  const groups = new Map<string, { scopes: ReadonlyArray<string>; at: Set<string> }>()
  for (const need of needs) {
    const key = [...need.scopes].sort().join(" ")
    const group = groups.get(key) ?? { scopes: need.scopes, at: new Set<string>() }
    group.at.add(need.at)
    groups.set(key, group)
  }
  return [...groups.values()].map((g) => ({ scopes: g.scopes, at: [...g.at].sort() }))
}

const readOf = (scope: string) => scope.replace(/^write_/, "read_")

/**
 * Judges the named scopes against the needs. `mentions(scope)` answers where the schema speaks of an
 * optional scope among what the documents touch (a coordinate), or undefined.
 */
export const checkScopes = (
  needs: ReadonlyArray<ScopeNeed>,
  named: ReadonlyArray<NamedScope>,
  readme: ReadonlyArray<string> | undefined,
  mentions: (scope: string) => string | undefined
): ScopeFindings => {
  const names = new Set(named.map((n) => n.scope))
  const groups = groupNeeds(needs).map((group) => {
    const direct = group.scopes.filter((s) => names.has(s))
    const implied = [...names].filter((s) => s.startsWith("write_") && group.scopes.includes(readOf(s)))
    return { ...group, metBy: direct.length > 0 ? direct : implied }
  })
  const failures: Array<string> = []
  for (const group of groups.filter((g) => g.metBy.length === 0)) {
    failures.push(`needed and not named: one of ${group.scopes.join(", ")} (for ${group.at.join(", ")})`)
  }
  const report = named.map((n) => {
    const neededBy = groups.filter((g) => g.metBy.includes(n.scope)).flatMap((g) => g.at)
    const justifiedBy = n.optional ? mentions(n.scope) : undefined
    if (!n.optional && neededBy.length === 0) failures.push(`named but nothing the connector sends needs it: ${n.scope}`)
    if (n.optional && neededBy.length === 0 && justifiedBy === undefined) {
      failures.push(`named as optional, and the schema says nothing of it where the connector reads: ${n.scope}`)
    }
    return { ...n, neededBy: [...new Set(neededBy)].sort(), ...(justifiedBy === undefined ? {} : { justifiedBy }) }
  })
  if (named.length === 0) failures.push("no named scopes found (src/stores/shopify/ShopifyScopes.ts exports none)")
  if (readme !== undefined) {
    const inReadme = new Set(readme)
    const missing = [...names].filter((s) => !inReadme.has(s)).sort()
    const extra = [...inReadme].filter((s) => !names.has(s)).sort()
    if (missing.length > 0) failures.push(`the README's "Going live" does not name: ${missing.join(", ")}`)
    if (extra.length > 0) failures.push(`the README's "Going live" names scopes check does not: ${extra.join(", ")}`)
  }
  return { named: report, groups, failures }
}
