import * as fs from "node:fs"
import { Schema, type SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { AppConfig } from "../../src/config/AppConfig.js"

/** Every key path the schema accepts ("stores[].shopify.shop"); records contribute "<path>.*". */
const schemaPaths = (ast: SchemaAST.AST, prefix: string, out: Set<string>): Set<string> => {
  switch (ast._tag) {
    case "Refinement":
      return schemaPaths(ast.from, prefix, out)
    case "Transformation":
      return schemaPaths(ast.from, prefix, out)
    case "Suspend":
      return schemaPaths(ast.f(), prefix, out)
    case "Union":
      for (const member of ast.types) schemaPaths(member, prefix, out)
      return out
    case "TupleType":
      for (const element of ast.rest) schemaPaths(element.type, `${prefix}[]`, out)
      return out
    case "TypeLiteral":
      for (const property of ast.propertySignatures) {
        const path = prefix === "" ? String(property.name) : `${prefix}.${String(property.name)}`
        out.add(path)
        schemaPaths(property.type, path, out)
      }
      if (ast.indexSignatures.length > 0) out.add(`${prefix}.*`)
      return out
    default:
      return out
  }
}

const documentPaths = (value: unknown, prefix: string, out: Set<string>): Set<string> => {
  if (Array.isArray(value)) {
    for (const item of value) documentPaths(item, `${prefix}[]`, out)
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const path = prefix === "" ? key : `${prefix}.${key}`
      out.add(path)
      documentPaths(item, path, out)
    }
  }
  return out
}

describe("config/podsync.example.yaml", () => {
  it("shows every key the configuration schema accepts", () => {
    const schema = schemaPaths(Schema.encodedSchema(AppConfig).ast, "", new Set())
    const example = documentPaths(parse(fs.readFileSync("config/podsync.example.yaml", "utf8")), "", new Set())
    const missing = [...schema].filter((path) => !example.has(path) && !path.endsWith(".*"))
    expect(missing).toEqual([])
    // And nothing in the example that the schema would refuse.
    expect([...example].filter((path) => !schema.has(path) && !schema.has(`${path.slice(0, path.lastIndexOf("."))}.*`))).toEqual([])
  })
})
