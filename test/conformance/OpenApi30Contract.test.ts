// The conformance judge on a toy OpenAPI 3.0 document written here, shaped like Etsy's (the
// published one stays outside the repository): `nullable`, integer path values, a format no
// validator knows, the credentials `security` asks for; and the recording proxy's masking.
import { describe, expect, it } from "vitest"
import { type HttpExchange, makeContract } from "../../conformance/OpenApiContract.js"
import { maskSecret } from "../../conformance/RecordingProxy.js"

const receipt = {
  type: "object",
  properties: {
    receipt_id: { type: "integer", format: "int64" },
    name: { type: "string" },
    city: { type: "string", nullable: true },
    country_iso: { type: "string", format: "ISO 3166-1 alpha-2", nullable: true },
    buyer: { nullable: true, allOf: [{ $ref: "#/components/schemas/Buyer" }] }
  }
}

const toy = {
  openapi: "3.0.2",
  servers: [{ url: "https://openapi.etsy.com" }],
  security: [{ api_key: [] }],
  paths: {
    "/v3/application/shops/{shop_id}/receipts/{receipt_id}": {
      get: {
        operationId: "getShopReceipt",
        security: [{ api_key: [], oauth2: ["transactions_r"] }],
        parameters: [
          { name: "shop_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
          { name: "receipt_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }
        ],
        responses: {
          "200": { description: "a receipt", content: { "application/json": { schema: { $ref: "#/components/schemas/ShopReceipt" } } } },
          "404": { description: "missing", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorSchema" } } } }
        }
      }
    }
  },
  components: {
    securitySchemes: {
      api_key: { type: "apiKey", name: "x-api-key", in: "header" },
      oauth2: {
        type: "oauth2",
        flows: {
          authorizationCode: {
            authorizationUrl: "https://www.etsy.com/oauth/connect",
            tokenUrl: "https://openapi.etsy.com/v3/public/oauth/token",
            scopes: {}
          }
        }
      }
    },
    schemas: {
      ShopReceipt: receipt,
      Buyer: { type: "object", properties: { email: { type: "string" } } },
      ErrorSchema: { type: "object", required: ["error"], properties: { error: { type: "string" } } }
    }
  }
}

const contract = makeContract(toy, [], { security: true })
const credentials: ReadonlyArray<readonly [string, string]> = [["x-api-key", "<masked>:<masked>"], ["authorization", "Bearer <masked>"]]
const judge = (over: Partial<HttpExchange>) => {
  const verdict = contract.check({
    method: "GET",
    path: "/v3/application/shops/48213795/receipts/3401234501",
    query: "",
    requestBody: "",
    status: 200,
    responseBody: JSON.stringify({ receipt_id: 3401234501, name: "Siân Evans", city: null, country_iso: null, buyer: null }),
    requestHeaders: credentials,
    ...over
  })
  return verdict._tag === "Checked" ? verdict.violations.map((v) => `${v.side} ${v.part}:${v.instancePath} ${v.message}`) : [verdict.reason]
}

describe("an OpenAPI 3.0 document", () => {
  it("takes null where nullable: true says so (beside allOf too), and nowhere else", () => {
    expect(judge({})).toEqual([])
    expect(judge({ responseBody: JSON.stringify({ receipt_id: 1, name: null }) })).toEqual(["answer body:/name must be string"])
    expect(contract.rewrittenNullable).toBe(3)
    expect(contract.droppedNullable).toBe(0)
  })

  it("reads integer path values as integers, and refuses one that is not", () => {
    expect(judge({ path: "/v3/application/shops/0/receipts/abc" })).toEqual([
      "request params:/path/shop_id must be >= 1",
      "request params:/path/receipt_id must be integer"
    ])
  })

  it("names the formats no validator knows instead of refusing or guessing", () => {
    expect(contract.uncheckedFormats).toEqual(["ISO 3166-1 alpha-2"])
    expect(judge({ responseBody: JSON.stringify({ name: "x", country_iso: "not a country" }) })).toEqual([])
  })

  it("judges the credentials the operation's security asks for", () => {
    expect(judge({ requestHeaders: [["x-api-key", "<masked>:<masked>"]] })).toEqual([
      "request security: Authorization: Bearer (oauth2) is missing"
    ])
    expect(judge({ requestHeaders: [["authorization", "Bearer <masked>"]] })).toEqual([
      "request security: header x-api-key (api_key) is missing"
    ])
  })

  it("judges an error answer against its status's response", () => {
    expect(judge({ status: 404, responseBody: JSON.stringify({ error: "Could not find a Shop Receipt" }) })).toEqual([])
    expect(judge({ status: 404, responseBody: JSON.stringify({ message: "nope" }) })).toEqual([
      "answer body: must have required property 'error'"
    ])
  })
})

describe("the recording proxy's masking", () => {
  it("keeps a secret's shape only: the scheme of an Authorization value, the parts of a key:secret pair", () => {
    expect(maskSecret("Bearer 873421905.abcdef")).toBe("Bearer <masked>")
    expect(maskSecret("1aa2bb3cc4dd:etsysimsharedsecret")).toBe("<masked>:<masked>")
    expect(maskSecret("shpat_0123456789")).toBe("<masked>")
  })
})
