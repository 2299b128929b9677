/**
 * Whether a recorded request carries the credentials an OpenAPI operation's
 * `security` asks for: names only (the recording proxy masks the values,
 * keeping the scheme word of an `Authorization` value).
 */
import type { Violation } from "./OpenApiContract.js"
import { isRecord, type Json } from "./OpenApiDocument.js"

/**
 * The operation's `security` (else the document's): one of its requirements met, each scheme of it by
 * its header (an API key's own header; `Authorization: Bearer` for OAuth 2 and HTTP bearer schemes).
 */
export const securityViolations = (doc: Json, op: Json, headers: ReadonlyArray<readonly [string, string]>): Array<Violation> => {
  const requirements = Array.isArray(op["security"]) ? op["security"] : Array.isArray(doc["security"]) ? doc["security"] : []
  if (requirements.length === 0) return []
  const sent = new Map(headers.map(([name, value]) => [name.toLowerCase(), value]))
  const schemes = isRecord(doc["components"]) && isRecord(doc["components"]["securitySchemes"])
    ? doc["components"]["securitySchemes"]
    : {}
  const missing = (name: string): string | undefined => {
    const scheme = schemes[name]
    if (!isRecord(scheme)) return `security scheme ${name} is not defined`
    if (scheme["type"] === "apiKey" && scheme["in"] === "header" && typeof scheme["name"] === "string") {
      return sent.has(scheme["name"].toLowerCase()) ? undefined : `header ${scheme["name"]} (${name}) is missing`
    }
    if (
      scheme["type"] === "oauth2" || scheme["type"] === "openIdConnect" || (scheme["type"] === "http" && scheme["scheme"] === "bearer")
    ) {
      return /^bearer\s/i.test(sent.get("authorization") ?? "") ? undefined : `Authorization: Bearer (${name}) is missing`
    }
    return undefined
  }
  const unmet = requirements.map((requirement) =>
    (isRecord(requirement) ? Object.keys(requirement) : []).flatMap((name) => missing(name) ?? [])
  )
  if (unmet.some((problems) => problems.length === 0)) return []
  return [{
    side: "request",
    part: "security",
    instancePath: "",
    keyword: "security",
    message: unmet.map((problems) => problems.join(" and ")).join("; or ")
  }]
}
