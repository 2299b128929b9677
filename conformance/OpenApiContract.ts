/**
 * A published OpenAPI 3.1 or 3.0 document as the judge of recorded HTTP
 * exchanges: finds the operation of a method and path, then validates the
 * path and query parameters, the JSON request body and the JSON answer with
 * Ajv's JSON Schema 2020-12 dialect (a 3.0 document's `nullable` said as
 * JSON Schema first), and on request the credentials its `security` asks
 * for. The document is given already parsed: this module reads no file.
 *
 * The whole document is added to Ajv once under one `$id`, so every schema is
 * a JSON pointer into it and the `#/components/schemas/...` references resolve
 * as written; each pointer is compiled once (Ajv caches it).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import formatsPlugin from "ajv-formats"
import {
  at,
  coerceQuery,
  coerceScalar,
  escapeToken,
  follow,
  formatsIn,
  isRecord,
  matchPath,
  nullableAsJsonSchema,
  pointer,
  type QuerySchema,
  type Segment,
  toSegments,
  withoutNullable
} from "./OpenApiDocument.js"
import { securityViolations } from "./OpenApiSecurity.js"

export interface HttpExchange {
  readonly method: string
  /** Path without the query string, as sent. */
  readonly path: string
  /** Query string without `?` (may be empty). */
  readonly query: string
  readonly requestBody: string
  /** 0 when no answer came back. */
  readonly status: number
  readonly responseBody: string
  /** Header names and values as sent (secrets masked); needed only to judge `security`. */
  readonly requestHeaders?: ReadonlyArray<readonly [string, string]>
}

export type Side = "request" | "answer"

export interface Violation {
  readonly side: Side
  /** Where in the request or answer: `params` (path and query), `body`, `status` or `operation`. */
  readonly part: "params" | "body" | "status" | "operation" | "security"
  readonly instancePath: string
  readonly keyword: string
  readonly message: string
  readonly value?: unknown
}

export type Verdict =
  | { readonly _tag: "Skipped"; readonly reason: string }
  | {
    readonly _tag: "Checked"
    /** The operation's short name (the last part of its operationId), or `METHOD path` when the contract has none. */
    readonly operation: string
    readonly operationId?: string
    /** Whether an answer was there to check (false when none came back or the operation is unknown). */
    readonly answerChecked: boolean
    readonly violations: ReadonlyArray<Violation>
  }

export interface ContractOperation {
  readonly operationId: string
  readonly operation: string
  readonly method: string
  readonly template: string
}

export interface SkipRule {
  readonly reason: string
  readonly applies: (exchange: HttpExchange) => boolean
}

export interface Contract {
  readonly operations: ReadonlyArray<ContractOperation>
  /** `nullable` keywords dropped from a 3.1 document: OpenAPI 3.0 only, JSON Schema 2020-12 does not know them. */
  readonly droppedNullable: number
  /** `nullable: true` of a 3.0 document said as `anyOf` the schema or null. */
  readonly rewrittenNullable: number
  /** `format`s the document names that no validator knows: not checked. */
  readonly uncheckedFormats: ReadonlyArray<string>
  readonly check: (exchange: HttpExchange) => Verdict
}

export interface ContractOptions {
  /** Also judge the credentials each request carries against the operation's `security` (needs `requestHeaders`). */
  readonly security?: boolean
}

interface IndexedPath {
  readonly template: string
  readonly segments: ReadonlyArray<Segment>
  readonly ptr: string
}

const DOC_ID = "pod-openapi"
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

const shortName = (operationId: string) => operationId.split(".").pop() ?? operationId

/** The property Ajv names in an `additionalProperties` error (its params are untyped). */
const extraProperty = (error: ErrorObject): string | undefined => {
  const extra: unknown = error.params["additionalProperty"]
  return error.keyword === "additionalProperties" && typeof extra === "string" ? extra : undefined
}

const describe = (error: ErrorObject): string => {
  const extra = extraProperty(error)
  return `${error.message ?? error.keyword}${extra === undefined ? "" : ` '${extra}'`}`
}

/** The value at fault: for an unexpected property, that property's value rather than its whole object. */
const offending = (error: ErrorObject): unknown => {
  const extra = extraProperty(error)
  return extra !== undefined && isRecord(error.data) ? error.data[extra] : error.data
}

/** Builds the judge; `skips` name exchanges outside the contract (legacy API, simulator admin, 429s). */
export const makeContract = (document: unknown, skips: ReadonlyArray<SkipRule> = [], options: ContractOptions = {}): Contract => {
  const openapi = isRecord(document) && typeof document["openapi"] === "string" ? document["openapi"] : ""
  const version30 = openapi.startsWith("3.0")
  const rewrite = version30 ? nullableAsJsonSchema(document) : undefined
  const { value: doc, dropped } = rewrite === undefined ? withoutNullable(document) : { value: rewrite.value, dropped: 0 }
  if (!isRecord(doc) || !isRecord(doc["paths"])) throw new Error("not an OpenAPI document: no `paths`")
  // strict: false ignores what JSON Schema does not define (title, example, x-*); the document as a whole
  // is not a schema, so it is not checked against the meta-schema; verbose keeps the data at fault.
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, validateSchema: false })
  formatsPlugin.default(ajv)
  // A format no validator knows (Etsy's "ISO 3166-1 alpha-2") is named in the run's notes, not guessed at.
  const uncheckedFormats = [...formatsIn(doc)].filter((format) => ajv.formats[format] === undefined).sort()
  for (const format of uncheckedFormats) ajv.addFormat(format, true)
  ajv.addSchema(doc, DOC_ID)

  /** An Ajv reference to a pointer of the document (each token URI-encoded: templates hold `{` and `}`). */
  const ref = (ptr: string) => `${DOC_ID}#${ptr.slice(1).split("/").map(encodeURIComponent).join("/")}`
  const validators = new Map<string, ValidateFunction>()
  const validatorAt = (ptr: string): ValidateFunction => {
    let validate = validators.get(ptr)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref(ptr) })
      validators.set(ptr, validate)
    }
    return validate
  }

  const paths: Array<IndexedPath> = Object.keys(doc["paths"]).map((template) => ({
    template,
    segments: toSegments(template),
    ptr: pointer("paths", template)
  }))
  const operations: Array<ContractOperation> = []
  for (const path of paths) {
    for (const method of METHODS) {
      const op = at(doc, `${path.ptr}/${method}`)
      if (isRecord(op) && typeof op["operationId"] === "string") {
        operations.push({
          operationId: op["operationId"],
          operation: shortName(op["operationId"]),
          method: method.toUpperCase(),
          template: path.template
        })
      }
    }
  }
  const basePaths = (Array.isArray(doc["servers"]) ? doc["servers"] : [])
    .flatMap((s) => (isRecord(s) && typeof s["url"] === "string" ? [new URL(s["url"], "http://x").pathname.replace(/\/+$/, "")] : []))
    .filter((p) => p !== "")

  /** Path and query parameters as one object schema, so unknown query keys are reported too. */
  const paramsValidators = new Map<
    string,
    {
      validate: ValidateFunction
      schemaOf: (name: string) => QuerySchema | undefined
      pathSchemaOf: (name: string) => unknown
    }
  >()
  const paramsFor = (opPtr: string) => {
    const cached = paramsValidators.get(opPtr)
    if (cached) return cached
    const declared = [`${opPtr.replace(/\/[^/]+$/, "")}/parameters`, `${opPtr}/parameters`].flatMap((listPtr) => {
      const list = at(doc, listPtr)
      return Array.isArray(list) ? list.map((_, i) => follow(doc, `${listPtr}/${i}`)) : []
    })
    const group = (where: string) => {
      const properties: Record<string, object> = {}
      const required: Array<string> = []
      const schemas = new Map<string, QuerySchema>()
      for (const ptr of declared) {
        const param = at(doc, ptr)
        if (!isRecord(param) || param["in"] !== where || typeof param["name"] !== "string") continue
        properties[param["name"]] = { $ref: ref(`${ptr}/schema`) }
        const schemaPtr = follow(doc, `${ptr}/schema`)
        schemas.set(param["name"], { schema: at(doc, schemaPtr), items: at(doc, follow(doc, `${schemaPtr}/items`)) })
        if (param["required"] === true || where === "path") required.push(param["name"])
      }
      return { schema: { type: "object", properties, required, additionalProperties: false }, schemas }
    }
    const query = group("query")
    const path = group("path")
    const entry = {
      validate: ajv.compile({ type: "object", properties: { path: path.schema, query: query.schema } }),
      schemaOf: (name: string) => query.schemas.get(name),
      pathSchemaOf: (name: string) => path.schemas.get(name)?.schema
    }
    paramsValidators.set(opPtr, entry)
    return entry
  }

  const violationsOf = (side: Side, part: Violation["part"], validate: ValidateFunction, data: unknown): Array<Violation> =>
    validate(data)
      ? []
      : (validate.errors ?? []).map((e) => ({
        side,
        part,
        instancePath: e.instancePath,
        keyword: e.keyword,
        message: describe(e),
        value: offending(e)
      }))

  const jsonViolations = (side: Side, text: string, schemaPtr: string | undefined, required: boolean): Array<Violation> => {
    const what = side === "request" ? "request body" : "answer"
    if (text.trim() === "") {
      return required ? [{ side, part: "body", instancePath: "", keyword: "required", message: `${what} is missing` }] : []
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch {
      return [{ side, part: "body", instancePath: "", keyword: "json", message: `${what} is not JSON`, value: text.slice(0, 200) }]
    }
    return schemaPtr === undefined ? [] : violationsOf(side, "body", validatorAt(schemaPtr), data)
  }

  const jsonSchemaOf = (objectPtr: string): string | undefined => {
    const ptr = `${follow(doc, objectPtr)}/content/application~1json/schema`
    return at(doc, ptr) === undefined ? undefined : ptr
  }

  const requestBodyViolations = (opPtr: string, text: string): Array<Violation> => {
    const bodyPtr = follow(doc, `${opPtr}/requestBody`)
    const body = at(doc, bodyPtr)
    if (isRecord(body)) return jsonViolations("request", text, jsonSchemaOf(bodyPtr), body["required"] === true)
    return text.trim() === ""
      ? []
      : [{ side: "request", part: "body", instancePath: "", keyword: "requestBody", message: "the operation takes no request body" }]
  }

  const responsePtr = (opPtr: string, status: number): string | undefined => {
    const responses = at(doc, `${opPtr}/responses`)
    if (!isRecord(responses)) return undefined
    const keys = [String(status), ...(status >= 200 && status < 300 ? ["200"] : []), `${String(status)[0]}XX`, "default"]
    const key = keys.find((k) => responses[k] !== undefined)
    return key === undefined ? undefined : `${opPtr}/responses/${escapeToken(key)}`
  }

  const check = (exchange: HttpExchange): Verdict => {
    const skip = skips.find((rule) => rule.applies(exchange))
    if (skip) return { _tag: "Skipped", reason: skip.reason }
    const base = basePaths.find((b) => exchange.path.startsWith(`${b}/`))
    const path = base === undefined ? exchange.path : exchange.path.slice(base.length)
    const matched = matchPath(paths, path)
    const method = exchange.method.toLowerCase()
    const opPtr = matched && `${pointer("paths", matched.template)}/${method}`
    const op = opPtr && at(doc, opPtr)
    if (!matched || !opPtr || !isRecord(op)) {
      const message = matched ? `${exchange.method} is not an operation of ${matched.template}` : "no path of the contract matches"
      return {
        _tag: "Checked",
        operation: `${exchange.method} ${path.replace(/\/[^/]*\d[^/]*/g, "/{id}")}`,
        answerChecked: false,
        violations: [{ side: "request", part: "operation", instancePath: "", keyword: "operation", message }]
      }
    }
    const operationId = typeof op["operationId"] === "string" ? op["operationId"] : `${exchange.method} ${matched.template}`
    const params = paramsFor(opPtr)
    const pathParams = Object.fromEntries(
      Object.entries(matched.params).map(([name, raw]) => [name, coerceScalar(raw, params.pathSchemaOf(name))])
    )
    const paramsData = { path: pathParams, query: coerceQuery(exchange.query, params.schemaOf) }
    const request = [
      ...violationsOf("request", "params", params.validate, paramsData),
      ...requestBodyViolations(opPtr, exchange.requestBody),
      ...(options.security === true ? securityViolations(doc, op, exchange.requestHeaders ?? []) : [])
    ]
    if (exchange.status === 0) {
      return { _tag: "Checked", operation: shortName(operationId), operationId, answerChecked: false, violations: request }
    }
    const resPtr = responsePtr(opPtr, exchange.status)
    const answer = resPtr === undefined
      ? [{
        side: "answer" as const,
        part: "status" as const,
        instancePath: "",
        keyword: "status",
        message: `status ${exchange.status} is not among the operation's responses`
      }]
      : jsonViolations("answer", exchange.responseBody, jsonSchemaOf(resPtr), true)
    return { _tag: "Checked", operation: shortName(operationId), operationId, answerChecked: true, violations: [...request, ...answer] }
  }

  return { operations, droppedNullable: dropped, rewrittenNullable: rewrite?.rewritten ?? 0, uncheckedFormats, check }
}
