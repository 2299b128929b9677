/**
 * Every Shopify document judged (GraphqlJudge.ts), grouped by document, with
 * the run's totals: documents validated, deprecated uses, the largest
 * requested cost both ways, the scopes needed against the scopes named, the
 * protected customer data read. Pure: no I/O.
 */
import type { Deprecation, Judgement, JudgeContext, ProtectedRead, ScopeNeed } from "./GraphqlJudge.js"
import { judgeDocument, judgementFailures } from "./GraphqlJudge.js"
import { checkScopes, type NamedScope, type ScopeFindings } from "./ScopeCheck.js"
import { canonicalText, type ExportedDocument, type SentDocument } from "./ShopifyDocuments.js"

/** Shopify refuses a single query that asks for more (`MAX_COST_EXCEEDED`). */
export const MAX_REQUESTED_COST = 1000

export interface Range {
  readonly min: number
  readonly max: number
}

export interface DocumentFinding {
  readonly operationName: string
  readonly operation: string
  readonly exports: ReadonlyArray<string>
  /** Times the tour sent it, and the steps that did. */
  readonly sent: number
  readonly steps: ReadonlyArray<string>
  readonly cost: { readonly published: Range; readonly listsByFirst: Range }
  readonly deprecated: ReadonlyArray<Deprecation>
  readonly failures: ReadonlyArray<string>
}

export interface CostPeak {
  readonly cost: number
  readonly operationName: string
}

export interface ShopifyFindings {
  readonly documents: ReadonlyArray<DocumentFinding>
  readonly requestsJudged: number
  readonly exportsNotSent: ReadonlyArray<string>
  readonly operations: ReadonlyArray<
    { readonly operationName: string; readonly documents: number; readonly published: Range; readonly listsByFirst: Range }
  >
  readonly maxCost: { readonly published: CostPeak; readonly listsByFirst: CostPeak }
  readonly deprecatedUses: number
  readonly protectedReads: ReadonlyArray<ProtectedRead>
  readonly scopes: ScopeFindings
  readonly failures: ReadonlyArray<string>
}

const range = (values: ReadonlyArray<number>): Range => ({ min: Math.min(...values), max: Math.max(...values) })

const unique = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Array<A> => [...new Map(items.map((a) => [key(a), a])).values()]

/** The type names a need's place names (`Order`, `Mutation.tagsAdd on Order (as …)` → Mutation, Order). */
const typesAt = (at: string): ReadonlyArray<string> => [...at.matchAll(/(?:^|\bon )([A-Z][A-Za-z]+)/g)].map((m) => m[1]!)

export const shopifyFindings = (
  ctx: JudgeContext,
  exported: ReadonlyArray<ExportedDocument>,
  sent: ReadonlyArray<SentDocument>,
  named: ReadonlyArray<NamedScope>,
  readme: ReadonlyArray<string> | undefined
): ShopifyFindings => {
  const groups = new Map<string, { exports: Array<string>; sends: Array<SentDocument>; text: string }>()
  const groupOf = (text: string) => {
    const key = canonicalText(text)
    const group = groups.get(key) ?? { exports: [], sends: [], text }
    groups.set(key, group)
    return group
  }
  for (const doc of exported) groupOf(doc.text).exports.push(doc.source)
  for (const doc of sent) groupOf(doc.text).sends.push(doc)

  const allNeeds: Array<ScopeNeed> = []
  const allProtected: Array<ProtectedRead> = []
  const documents: Array<DocumentFinding> = []
  for (const group of groups.values()) {
    // A document sent is judged as sent (its variables give batch sizes and owners); one never sent, as written.
    const judgements: ReadonlyArray<Judgement> = group.sends.length > 0
      ? group.sends.map((s) => judgeDocument(ctx, s.text, s.variables))
      : [judgeDocument(ctx, group.text)]
    const first = judgements[0]!
    for (const j of judgements) {
      allNeeds.push(...j.needs)
      allProtected.push(...j.protectedReads)
    }
    const failures = [...new Set(judgements.flatMap((j) => judgementFailures(j, MAX_REQUESTED_COST)))]
    documents.push({
      operationName: first.operationName,
      operation: first.operation,
      exports: group.exports,
      sent: group.sends.length,
      steps: [...new Set(group.sends.map((s) => s.label))],
      cost: { published: range(judgements.map((j) => j.cost.published)), listsByFirst: range(judgements.map((j) => j.cost.listsByFirst)) },
      deprecated: unique(judgements.flatMap((j) => j.deprecated), (d) => `${d.kind} ${d.coordinate}`),
      failures: group.sends.length === 0 && failures.length > 0
        ? failures.map((f) => `${f} (the tour never sent it: a step that sends it would give its variables)`)
        : failures
    })
  }
  documents.sort((a, b) => a.operationName.localeCompare(b.operationName) || a.cost.published.max - b.cost.published.max)

  const byOperation = new Map<string, Array<DocumentFinding>>()
  for (const d of documents) byOperation.set(d.operationName, [...(byOperation.get(d.operationName) ?? []), d])
  const operations = [...byOperation.entries()].map(([operationName, docs]) => ({
    operationName,
    documents: docs.length,
    published: range(docs.flatMap((d) => [d.cost.published.min, d.cost.published.max])),
    listsByFirst: range(docs.flatMap((d) => [d.cost.listsByFirst.min, d.cost.listsByFirst.max]))
  }))
  const peak = (of: (d: DocumentFinding) => number): CostPeak =>
    documents.reduce<CostPeak>((best, d) => (of(d) > best.cost ? { cost: of(d), operationName: d.operationName } : best), {
      cost: 0,
      operationName: "-"
    })

  const touched = new Set(allNeeds.flatMap((n) => typesAt(n.at)))
  const mentions = (scope: string) => [...touched].find((type) => ctx.access.descriptionOf(type).includes(`\`${scope}\``))
  const scopes = checkScopes(allNeeds, named, readme, mentions)
  const deprecatedUses = documents.reduce((n, d) => n + d.deprecated.length, 0)
  const failures = [
    ...documents.flatMap((d) => d.failures.map((f) => `${d.operationName}: ${f}`)),
    ...scopes.failures.map((f) => `scopes: ${f}`)
  ]
  return {
    documents,
    requestsJudged: sent.length,
    exportsNotSent: documents.filter((d) => d.sent === 0).flatMap((d) => d.exports),
    operations,
    maxCost: { published: peak((d) => d.cost.published.max), listsByFirst: peak((d) => d.cost.listsByFirst.max) },
    deprecatedUses,
    protectedReads: unique(allProtected, (p) => p.coordinate).sort((a, b) => a.coordinate.localeCompare(b.coordinate)),
    scopes,
    failures
  }
}
