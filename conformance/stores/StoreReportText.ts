/** The store conformance run's findings as a person reads them in a CI log. */
import type { HttpFindings } from "./HttpFindings.js"
import type { ShopifyFindings } from "./ShopifyFindings.js"
import type { StoreTourResult } from "./StoreTour.js"

export const LIST_RULE_NOTE =
  "Plain lists with `first` (Order.fulfillments(first:), Fulfillment.trackingInfo(first:)): Shopify's published table does not say how they are charged. " +
  '`published` counts such a list as one item (the table\'s "object 1"), `listsByFirst` as `first` items; a list of ids (nodes(ids:)) is charged per id both ways. ' +
  "The run fails on the published count only."

const pad = (text: string | number, width: number) => String(text).padEnd(width)

const tourLines = (tour: StoreTourResult): Array<string> => [
  `  operations: ${tour.methods.join(", ")}`,
  ...(tour.drivenAsFound.length > 0 ? [`  driven as found (no arguments): ${tour.drivenAsFound.join(", ")}`] : []),
  ...(tour.notDriven.length > 0 ? [`  NOT DRIVEN (no step): ${tour.notDriven.join(", ")}`] : []),
  `  steps: ${tour.outcomes.length}, did not end as intended: ${tour.outcomes.filter((o) => !o.ok).length}`,
  ...tour.outcomes.filter((o) => !o.ok).map((o) => `    ${o.label}: ${o.error ?? "failed"}`)
]

export const renderShopify = (
  f: ShopifyFindings,
  tour: StoreTourResult,
  otherRequests: ReadonlyArray<string>,
  schemaPath: string
): string => {
  const named = f.scopes.named
  const lines = [
    `Shopify Admin GraphQL conformance against ${schemaPath}`,
    ...tourLines(tour),
    `documents validated: ${f.documents.length} (${f.documents.filter((d) => d.exports.length > 0).length} exported by the connector, ` +
    `${f.documents.filter((d) => d.sent > 0).length} sent in the tour; ${f.requestsJudged} GraphQL requests judged)`,
    `exported documents the tour never sent (judged as written): ${f.exportsNotSent.length === 0 ? "none" : f.exportsNotSent.join(", ")}`,
    `other requests: ${otherRequests.length === 0 ? "none" : otherRequests.join("; ")}`,
    `deprecated uses (fields, arguments, enum values, input fields, in documents and variables): ${f.deprecatedUses}`,
    `max requested cost: ${f.maxCost.published.cost} published (${f.maxCost.published.operationName}), ` +
    `${f.maxCost.listsByFirst.cost} with lists charged by first (${f.maxCost.listsByFirst.operationName}); limit 1,000`,
    `  ${LIST_RULE_NOTE}`,
    "",
    "Operations (distinct documents; requested cost, smallest to largest batch: published / lists by first):"
  ]
  for (const op of f.operations) {
    lines.push(
      `  ${pad(op.operationName, 42)}${pad(op.documents, 4)}${
        pad(`${op.published.min}-${op.published.max}`, 12)
      }${op.listsByFirst.min}-${op.listsByFirst.max}`
    )
  }
  const needed = named.filter((n) => n.neededBy.length > 0 || n.justifiedBy !== undefined)
  lines.push(
    "",
    `scopes: ${f.scopes.groups.length} needs in the schema's requiredAccess, met by ${needed.length} of ${named.length} named ` +
      `(${named.map((n) => `${n.scope}${n.optional ? " (optional)" : ""}`).join(", ")})`
  )
  for (const group of f.scopes.groups) {
    lines.push(`  one of ${group.scopes.join(" | ")}  ← ${group.at.join(", ")}  met by: ${group.metBy.join(", ") || "NOTHING NAMED"}`)
  }
  for (const n of named) {
    lines.push(
      `  ${pad(n.scope, 44)}${
        n.neededBy.length > 0
          ? `needed by ${n.neededBy.join(", ")}`
          : n.justifiedBy !== undefined
          ? `optional: the schema's ${n.justifiedBy} speaks of it`
          : "NEEDED BY NOTHING"
      }`
    )
  }
  lines.push(
    `protected customer data read (Level 2): ${
      f.protectedReads.map((p) => `${p.coordinate} (${p.subject} ${p.content})`).join(", ") || "none"
    }`
  )
  return lines.join("\n")
}

export const renderEtsy = (
  f: HttpFindings,
  tour: StoreTourResult,
  oasPath: string,
  overlayPath: string,
  notes: ReadonlyArray<string>
): string => {
  const skipped = Object.entries(f.skipped).map(([reason, n]) => `${reason}: ${n}`).join(", ")
  const lines = [
    `Etsy Open API v3 conformance against ${oasPath} with ${overlayPath} applied`,
    ...tourLines(tour),
    `exchanges recorded: ${f.exchanges}; skipped: ${skipped === "" ? "none" : skipped}`,
    `requests checked: ${f.requests.checked}, rejected: ${f.requests.rejected}`,
    `answers checked: ${f.answers.checked}, rejected: ${f.answers.rejected}${
      f.answers.unchecked > 0 ? `, not checkable: ${f.answers.unchecked}` : ""
    }`,
    `contract operations used: ${f.operationsUsed.length} of ${f.contractOperations}: ${
      f.operationsUsed.map((o) => `${o.operation} ×${o.count}`).join(", ")
    }`,
    `credentials sent: ${Object.entries(f.credentials).map(([shape, n]) => `${shape} ×${n}`).join("; ")}`,
    ...notes.map((n) => `  note: ${n}`)
  ]
  if (f.kinds.length > 0) {
    lines.push("Violations (occurrences  side  operation  where  rule; one example each):")
    for (const k of f.kinds) {
      lines.push(`  ${pad(k.count, 5)} ${pad(k.side, 8)}${k.operation}  ${k.where}  ${k.rule}`, `        e.g. ${k.example}`)
    }
  }
  return lines.join("\n")
}
