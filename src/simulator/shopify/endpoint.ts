import {
  execute,
  getOperationAST,
  getVariableValues,
  type GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode
} from "graphql"
import { type Grant, guardedResolver, requestAccess } from "./access.js"
import { type CostBucket, type CostRules, queryCost } from "./cost.js"
import type { ShopState } from "./store.js"

/**
 * One GraphQL request: parse, validate, price, pay from the bucket, execute, refund. Every answer carries
 * `extensions.cost`; a request the bucket cannot pay is answered THROTTLED (HTTP 200, no data).
 */

export interface GraphqlBody {
  readonly query: string
  readonly variables: Record<string, unknown>
  readonly operationName: string | null
}

export type JsonObject = Record<string, unknown>

export interface PreparedRequest {
  readonly kind: "prepared"
  readonly rootFields: ReadonlyArray<string>
  readonly isMutation: boolean
  readonly run: (options: { readonly forceThrottle: boolean; readonly grant: Grant }) => Promise<JsonObject>
}

export interface EndpointConfig {
  readonly schema: GraphQLSchema
  readonly state: ShopState
  readonly bucket: CostBucket
  readonly rootValue: unknown
  readonly maxQueryCost: number
  readonly costRules: CostRules
}

const errorJson = (error: GraphQLError): JsonObject => error.toJSON() as unknown as JsonObject

/** Reads the request body: JSON `{ query, variables, operationName }` or a raw `application/graphql` document. */
export const decodeBody = (raw: string, contentType: string | undefined): GraphqlBody | string => {
  if ((contentType ?? "").includes("application/graphql")) return { query: raw, variables: {}, operationName: null }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return "Invalid JSON in request body"
  }
  if (typeof parsed !== "object" || parsed === null) return "Request body must be a JSON object"
  const { query, variables, operationName } = parsed as Record<string, unknown>
  if (typeof query !== "string") return "Parameter Missing or Invalid: query"
  return {
    query,
    variables: typeof variables === "object" && variables !== null ? (variables as Record<string, unknown>) : {},
    operationName: typeof operationName === "string" ? operationName : null
  }
}

/** Parses and validates; an invalid document is answered right away (200 with `errors`). */
export const prepare = (
  config: EndpointConfig,
  body: GraphqlBody
): PreparedRequest | { readonly kind: "invalid"; readonly answer: JsonObject } => {
  let document: DocumentNode
  try {
    document = parse(body.query)
  } catch (error) {
    return { kind: "invalid", answer: { errors: [errorJson(error as GraphQLError)] } }
  }
  const validation = validate(config.schema, document)
  if (validation.length > 0) return { kind: "invalid", answer: { errors: validation.map(errorJson) } }
  const operation = getOperationAST(document, body.operationName)
  if (!operation) {
    return { kind: "invalid", answer: { errors: [{ message: "An operation name is required when the document has several operations." }] } }
  }
  const rootFields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []))
  return {
    kind: "prepared",
    rootFields,
    isMutation: operation.operation === "mutation",
    run: (options) => run(config, body, document, operation, options)
  }
}

const run = async (
  config: EndpointConfig,
  body: GraphqlBody,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  { forceThrottle, grant }: { readonly forceThrottle: boolean; readonly grant: Grant }
): Promise<JsonObject> => {
  const { state, bucket } = config
  const coerced = getVariableValues(config.schema, operation.variableDefinitions ?? [], body.variables)
  if (coerced.errors) return { errors: coerced.errors.map(errorJson) }
  const fragments: Record<string, FragmentDefinitionNode> = {}
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d
  const cost = queryCost(config.schema, operation, fragments, coerced.coerced, config.costRules)
  if (cost.requested > config.maxQueryCost) {
    return {
      errors: [{
        message:
          `Query cost is ${cost.requested}, which exceeds the single query max cost limit (${config.maxQueryCost}).\n\nSee https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n\nTo query larger amounts of data with fewer limits, bulk operations should be used instead.\nSee https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n`,
        extensions: { code: "MAX_COST_EXCEEDED", cost: cost.requested, maxCost: config.maxQueryCost }
      }],
      extensions: { cost: { requestedQueryCost: cost.requested, actualQueryCost: null, throttleStatus: bucket.status() } }
    }
  }
  const paid = !forceThrottle && bucket.tryTake(cost.requested)
  if (!paid) {
    state.stats.throttled += 1
    if (!forceThrottle) state.stats.requestsWhileShort += 1
    return {
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }],
      extensions: { cost: { requestedQueryCost: cost.requested, actualQueryCost: null, throttleStatus: bucket.status() } }
    }
  }
  state.openDueScheduled()
  const result = await execute({
    schema: config.schema,
    document,
    rootValue: config.rootValue,
    contextValue: requestAccess(grant, state.shop.plan, state.now()),
    fieldResolver: guardedResolver,
    variableValues: body.variables,
    ...(body.operationName === null ? {} : { operationName: body.operationName })
  })
  const actual = Math.min(cost.requested, cost.actual(result.data ?? {}))
  bucket.refund(cost.requested - actual)
  state.stats.costSpent += actual
  const name = operation.name?.value ?? "(anonymous)"
  state.stats.operations[name] = (state.stats.operations[name] ?? 0) + 1
  if (operation.operation === "mutation") {
    for (const field of operation.selectionSet.selections) {
      if (field.kind === Kind.FIELD) state.stats.mutations[field.name.value] = (state.stats.mutations[field.name.value] ?? 0) + 1
    }
  }
  return {
    ...(result.errors ? { errors: result.errors.map(errorJson) } : {}),
    ...(result.data === undefined ? {} : { data: result.data }),
    extensions: { cost: { requestedQueryCost: cost.requested, actualQueryCost: actual, throttleStatus: bucket.status() } }
  }
}
