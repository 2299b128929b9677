// The conformance judge on a toy OpenAPI 3.1 document written here (the
// published one stays outside the repository): path matching, query
// coercion, body and answer validation, skips and the run's tally.
import { describe, expect, it } from "vitest"
import { authPair, collapseIndexes, tally } from "../../conformance/ConformanceReport.js"
import { coerceQuery, matchPath, toSegments } from "../../conformance/OpenApiDocument.js"
import { type HttpExchange, makeContract } from "../../conformance/OpenApiContract.js"
import type { RecordedExchange } from "../../conformance/RecordingProxy.js"

const errors = { "404": { $ref: "#/components/responses/NotFound" } }
const ok = (schema: string) => ({
  description: "ok",
  content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } }
})

const toy = {
  openapi: "3.1.0",
  servers: [{ url: "https://pod.example.com/integration-handler" }],
  paths: {
    "/api/v3/orders": {
      get: {
        operationId: "api.order.v1.VendorOrderAPI.VendorListOrder",
        parameters: [
          { name: "filter.order_ids", in: "query", schema: { type: "array", items: { type: "string", maxLength: 10 } } },
          { name: "filter.statuses", in: "query", schema: { type: "array", items: { $ref: "#/components/schemas/Status" } } },
          { name: "paging.limit", in: "query", schema: { type: "integer", format: "int32" } }
        ],
        responses: { "200": ok("OrderList"), ...errors }
      }
    },
    "/api/v3/orders/draft": {
      post: {
        operationId: "api.order.v1.VendorOrderAPI.VendorCreateOrderDraft",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/DraftRequest" } } } },
        responses: { "200": ok("Order"), ...errors }
      }
    },
    "/api/v3/orders/{order_id}": {
      get: {
        operationId: "api.order.v1.VendorOrderAPI.VendorGetOrder",
        parameters: [{ name: "order_id", in: "path", required: true, schema: { type: "string", minLength: 1, maxLength: 8 } }],
        responses: { "200": ok("OrderEnvelope"), ...errors }
      }
    }
  },
  components: {
    schemas: {
      Status: { type: ["string", "number"], enum: ["STATUS_SHIPPED", 7] },
      Order: {
        type: "object",
        additionalProperties: false,
        properties: {
          order_id: { type: "string", title: "order_id", examples: ["ord_1"] },
          units: { type: ["integer", "string"], format: "int64" },
          channel: { nullable: true, $ref: "#/components/schemas/Channel" }
        }
      },
      Channel: { type: "object", additionalProperties: false, properties: { name: { type: "string" } } },
      OrderEnvelope: { type: "object", additionalProperties: false, properties: { data: { $ref: "#/components/schemas/Order" } } },
      OrderList: {
        type: "object",
        additionalProperties: false,
        properties: { data: { type: "array", items: { $ref: "#/components/schemas/Order" } } }
      },
      DraftRequest: {
        type: "object",
        additionalProperties: false,
        required: ["data"],
        properties: { data: { type: "object", required: ["reference_id"], properties: { reference_id: { type: "string" } } } }
      },
      ErrorResponse: {
        type: "object",
        required: ["code", "message"],
        properties: { code: { type: "string" }, message: { type: "string" } }
      }
    },
    responses: {
      NotFound: { description: "missing", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } }
    }
  }
}

const skips = [
  { reason: "simulator admin", applies: (e: HttpExchange) => e.path.startsWith("/__sim") },
  { reason: "429", applies: (e: HttpExchange) => e.status === 429 }
]
const contract = makeContract(toy, skips)

const exchange = (over: Partial<HttpExchange>): HttpExchange => ({
  method: "GET",
  path: "/api/v3/orders",
  query: "",
  requestBody: "",
  status: 200,
  responseBody: '{"data":[]}',
  ...over
})
const violations = (over: Partial<HttpExchange>) => {
  const verdict = contract.check(exchange(over))
  return verdict._tag === "Checked" ? verdict.violations.map((v) => `${v.side} ${v.instancePath} ${v.keyword}`) : [verdict.reason]
}

describe("path matching", () => {
  const paths = Object.keys(toy.paths).map((template) => ({ template, segments: toSegments(template) }))

  it("prefers a concrete segment to a template: /orders/draft is not an order id", () => {
    expect(matchPath(paths, "/api/v3/orders/draft")?.template).toBe("/api/v3/orders/draft")
    expect(matchPath(paths, "/api/v3/orders/ord%201")).toEqual({ template: "/api/v3/orders/{order_id}", params: { order_id: "ord 1" } })
  })

  it("matches nothing for an empty id or an unknown path", () => {
    expect(matchPath(paths, "/api/v3/orders/")).toBeUndefined()
    expect(matchPath(paths, "/api/v3/nothing")).toBeUndefined()
  })
})

describe("query coercion", () => {
  it("reads repeated keys as arrays and numbers where the schema wants them", () => {
    const schemas: Record<string, { schema: unknown; items: unknown }> = {
      "filter.ids": { schema: { type: "array" }, items: { type: "string" } },
      "filter.statuses": { schema: { type: "array" }, items: { type: ["string", "number"] } },
      "paging.limit": { schema: { type: "integer" }, items: undefined }
    }
    expect(
      coerceQuery("filter.ids=a&filter.ids=b&filter.statuses=7&filter.statuses=STATUS_SHIPPED&paging.limit=20&other=1", (n) => schemas[n])
    )
      .toEqual({ "filter.ids": ["a", "b"], "filter.statuses": [7, "STATUS_SHIPPED"], "paging.limit": 20, other: "1" })
    expect(coerceQuery("filter.ids=12", (n) => schemas[n])).toEqual({ "filter.ids": ["12"] })
  })
})

describe("judging exchanges", () => {
  it("accepts a conforming list call with repeated array keys and a base path prefix", () => {
    expect(violations({
      path: "/integration-handler/api/v3/orders",
      query: "filter.order_ids=a&filter.order_ids=b&filter.statuses=7&paging.limit=5",
      responseBody: '{"data":[{"order_id":"a","units":"12"}]}'
    })).toEqual([])
  })

  it("rejects bad query values and parameters the contract does not name", () => {
    expect(violations({ query: "paging.limit=ten&filter.order_ids=waytoolongid&filter.colour=red" }).sort()).toEqual([
      "request /query additionalProperties",
      "request /query/filter.order_ids/0 maxLength",
      "request /query/paging.limit type"
    ])
  })

  it("names an unexpected answer field and shows its value", () => {
    const verdict = contract.check(exchange({ responseBody: '{"data":[{"order_id":"a","tracking_number":"1Z"}]}' }))
    expect(verdict._tag === "Checked" && verdict.violations).toEqual([
      expect.objectContaining({
        side: "answer",
        instancePath: "/data/0",
        keyword: "additionalProperties",
        message: "must NOT have additional properties 'tracking_number'",
        value: "1Z"
      })
    ])
  })

  it("judges request bodies, path parameters and error answers", () => {
    expect(violations({ method: "POST", path: "/api/v3/orders/draft", requestBody: '{"data":{}}', responseBody: '{"order_id":"d1"}' }))
      .toEqual(["request /data required"])
    expect(violations({ method: "POST", path: "/api/v3/orders/draft", requestBody: "", responseBody: "{}" })).toEqual(["request  required"])
    expect(violations({ path: "/api/v3/orders/much-too-long", responseBody: '{"data":{"order_id":"x"}}' })).toEqual([
      "request /path/order_id maxLength"
    ])
    expect(violations({ path: "/api/v3/orders/o1", status: 404, responseBody: '{"code":"NOT_FOUND","message":"no"}' })).toEqual([])
    expect(violations({ path: "/api/v3/orders/o1", status: 404, responseBody: '{"error":"no"}' })).toEqual([
      "answer  required",
      "answer  required"
    ])
    expect(violations({ path: "/api/v3/orders/o1", status: 418, responseBody: "{}" })).toEqual(["answer  status"])
  })

  it('judges 2xx answers against "200" and treats OpenAPI 3.0\'s nullable as the unknown keyword it is in 3.1', () => {
    expect(contract.droppedNullable).toBe(1)
    expect(violations({ path: "/api/v3/orders/o1", status: 201, responseBody: '{"data":{"channel":{"name":"etsy"}}}' })).toEqual([])
    expect(violations({ path: "/api/v3/orders/o1", responseBody: '{"data":{"channel":null}}' })).toEqual(["answer /data/channel type"])
  })

  it("reports an operation the contract does not have, and skips what is outside it", () => {
    expect(violations({ method: "DELETE", path: "/api/v3/orders/o1" })).toEqual(["request  operation"])
    expect(violations({ path: "/api/v3/unknown/123" })).toEqual(["request  operation"])
    expect(violations({ path: "/__sim/stats" })).toEqual(["simulator admin"])
    expect(violations({ status: 429, responseBody: "{}" })).toEqual(["429"])
  })
})

describe("the run's tally", () => {
  const recorded = (over: Partial<RecordedExchange>): RecordedExchange => ({
    ...exchange({}),
    seq: 1,
    label: "listOrders",
    requestHeaders: [["X-Gearment-Client-Key", "k"], ["X-Gearment-Client-Secret", "<masked>"]],
    ...over
  })

  it("collapses array indexes and names the auth header pair", () => {
    expect(collapseIndexes("/data/12/line_items/0/price")).toBe("/data/*/line_items/*/price")
    expect(authPair([["X-API-Key", "k"], ["X-API-Secret", "s"], ["Accept", "json"]])).toBe("X-API-Key + X-API-Secret")
    expect(authPair([["Accept", "json"]])).toBe("none")
  })

  it("fails on a rejected answer and on a client method without a step", () => {
    const bad = recorded({ responseBody: '{"data":[{"extra":1}]}', seq: 2 })
    const judged = [recorded({}), bad].map((e) => ({ exchange: e, verdict: contract.check(e) }))
    const findings = tally(judged, [], {
      methods: ["listOrders", "getOrder"],
      outcomes: [{ label: "listOrders", method: "listOrders", ok: true, clientOperations: ["orders.list"] }]
    }, undefined)
    expect(findings.requests).toEqual({ checked: 2, rejected: 0 })
    expect(findings.answers).toEqual({ checked: 2, rejected: 1, unchecked: 0 })
    expect(findings.kinds.map((k) => `${k.operation} ${k.path} ${k.message}`)).toEqual([
      "VendorListOrder /data/* must NOT have additional properties 'extra'"
    ])
    expect(findings.coverage.clientMethods.map((m) => [m.method, m.covered])).toEqual([["listOrders", true], ["getOrder", false]])
    expect(findings.failures).toEqual(["1 of 2 answers rejected by the contract", "client methods with no step in the tour: getOrder"])
    expect(findings.authHeaders).toEqual({ "X-Gearment-Client-Key + X-Gearment-Client-Secret": 2 })
  })
})
