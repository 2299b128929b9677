/**
 * Where the Shopify documents to judge come from: every GraphQL document the
 * connector's modules export (found at run time: a string that parses as an
 * operation), and every document the tour sent on the wire, with the
 * variables it was sent with (the batched ones are built per call).
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Kind, parse, print } from "graphql"
import { isRecord } from "../OpenApiDocument.js"
import type { RecordedExchange } from "../RecordingProxy.js"

export interface ExportedDocument {
  /** `ShopifyQueries.ORDERS_PAGE` */
  readonly source: string
  readonly text: string
}

export interface SentDocument {
  readonly text: string
  readonly variables: Readonly<Record<string, unknown>>
  readonly label: string
  readonly status: number
  readonly responseBody: string
}

/** One text per document, whatever its layout: the key documents are grouped by. */
export const canonicalText = (text: string): string => {
  try {
    return print(parse(text))
  } catch {
    return text.trim()
  }
}

const isOperation = (text: string): boolean => {
  try {
    return parse(text).definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION)
  } catch {
    return false
  }
}

/** The documents the modules of `dir` export (compiled `.js`, or `.ts` when run from source). */
export const exportedDocuments = async (dir: URL): Promise<ReadonlyArray<ExportedDocument>> => {
  const files = fs.readdirSync(fileURLToPath(dir)).filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.ts")).sort()
  const found: Array<ExportedDocument> = []
  for (const file of files) {
    const module = (await import(new URL(file, dir).href)) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === "string" && isOperation(value)) found.push({ source: `${file.replace(/\.(js|ts)$/, "")}.${name}`, text: value })
    }
  }
  return found
}

const GRAPHQL_PATH = /\/admin\/api\/[^/]+\/graphql\.json$/

/** The GraphQL requests among the exchanges, and the rest (token requests, anything else), apart. */
export const sentDocuments = (
  exchanges: ReadonlyArray<RecordedExchange>
): { readonly sent: ReadonlyArray<SentDocument>; readonly other: ReadonlyArray<RecordedExchange> } => {
  const sent: Array<SentDocument> = []
  const other: Array<RecordedExchange> = []
  for (const exchange of exchanges) {
    let body: unknown
    try {
      body = exchange.method === "POST" && GRAPHQL_PATH.test(exchange.path) ? JSON.parse(exchange.requestBody) : undefined
    } catch {
      body = undefined
    }
    if (isRecord(body) && typeof body["query"] === "string") {
      sent.push({
        text: body["query"],
        variables: isRecord(body["variables"]) ? body["variables"] : {},
        label: exchange.label,
        status: exchange.status,
        responseBody: exchange.responseBody
      })
    } else other.push(exchange)
  }
  return { sent, other }
}
