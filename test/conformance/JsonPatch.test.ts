// JSON Patch (RFC 6902) as the store conformance step applies Etsy's overlay, on documents
// written here: each operation, the RFC's own examples, pointers with escaped characters.
import { describe, expect, it } from "vitest"
import { applyPatch, readPatch } from "../../conformance/stores/JsonPatch.js"

const oas = {
  components: {
    securitySchemes: { api_key: { type: "apiKey", description: "your keystring" } },
    schemas: { TransactionVariations: { properties: {} } }
  },
  paths: {
    "/v3/shops/{shop_id}/receipts/{receipt_id}/tracking": {
      post: { requestBody: { content: { "application/x-www-form-urlencoded": {} } } }
    }
  }
}

describe("JSON Patch", () => {
  it("applies an overlay like Etsy's in order, on a copy, through pointers with ~1 for /", () => {
    const patch = readPatch({
      description: "what changed",
      patch: [
        { op: "replace", path: "/components/securitySchemes/api_key/description", value: "keystring:shared_secret" },
        {
          op: "replace",
          path: "/paths/~1v3~1shops~1{shop_id}~1receipts~1{receipt_id}~1tracking/post/requestBody",
          value: { content: { "application/json": { schema: { type: "object" } } } }
        },
        { op: "add", path: "/components/schemas/TransactionVariations/properties/question_id", value: { type: "integer", nullable: true } }
      ]
    })
    const patched = applyPatch(oas, patch) as typeof oas & Record<string, unknown>
    expect(patched.components.securitySchemes.api_key.description).toBe("keystring:shared_secret")
    expect(patched.paths["/v3/shops/{shop_id}/receipts/{receipt_id}/tracking"].post.requestBody).toEqual({
      content: { "application/json": { schema: { type: "object" } } }
    })
    expect(patched.components.schemas.TransactionVariations.properties).toEqual({ question_id: { type: "integer", nullable: true } })
    // The original is untouched.
    expect(oas.components.securitySchemes.api_key.description).toBe("your keystring")
  })

  it("adds, removes, replaces, moves, copies and tests, in arrays too (RFC 6902 appendix A)", () => {
    expect(applyPatch({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }])).toEqual({ foo: ["bar", "qux", "baz"] })
    expect(applyPatch({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc"] }])).toEqual({ foo: ["bar", ["abc"]] })
    expect(applyPatch({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }])).toEqual({ foo: ["bar", "baz"] })
    expect(applyPatch({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }])).toEqual({ baz: "boo", foo: "bar" })
    expect(
      applyPatch({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }])
    )
      .toEqual({ foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } })
    expect(applyPatch({ a: { b: [1] } }, [{ op: "copy", from: "/a/b", path: "/c" }])).toEqual({ a: { b: [1] }, c: [1] })
    expect(applyPatch({ "a/b": 1, "m~n": 2 }, [{ op: "test", path: "/a~1b", value: 1 }, { op: "remove", path: "/m~0n" }])).toEqual({
      "a/b": 1
    })
    expect(applyPatch({ any: 1 }, [{ op: "replace", path: "", value: { whole: true } }])).toEqual({ whole: true })
  })

  it("refuses an operation that cannot apply, naming it, and a patch that is not one", () => {
    expect(() => applyPatch({ foo: "bar" }, [{ op: "replace", path: "/baz", value: 1 }])).toThrow(
      /patch operation 0 \(replace \/baz\): \/baz: nothing at "baz"/
    )
    expect(() => applyPatch({ foo: "bar" }, [{ op: "add", path: "/a/b", value: 1 }])).toThrow(/operation 0 \(add \/a\/b\)/)
    expect(() => applyPatch({ foo: "bar" }, [{ op: "test", path: "/foo", value: "baz" }])).toThrow(/test failed/)
    expect(() => applyPatch({ foo: [1] }, [{ op: "add", path: "/foo/5", value: 2 }])).toThrow(/not an index/)
    expect(() => applyPatch({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "/a/c" }])).toThrow(/own child/)
    expect(() => readPatch({ patch: [{ op: "add", path: "/x" }] })).toThrow(/add needs value/)
    expect(() => readPatch({ patch: [{ op: "merge", path: "/x" }] })).toThrow(/expected \{ op: add/)
    expect(() => readPatch({ operations: [] })).toThrow(/not a JSON Patch/)
  })
})
