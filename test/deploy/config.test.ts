import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { parseConfig } from "../../src/config/loadConfig.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { configPlaceholders, deployConfigText, envFile, readDeploy } from "./deployFiles.js"

/** The deployment config and mappings, decoded by podsync's own loader, as each deployment's environment sets them. */

const composeEnv = {
  ...envFile(".env.example"),
  DATABASE_URL: "postgres://podsync:change-me@postgres:5432/podsync",
  PODSYNC_CONFIG: "/etc/podsync/podsync.yaml",
  PODSYNC_PORT: "8080"
}

describe("deploy/config/podsync.yaml", () => {
  it("decodes with the compose environment: PostgreSQL, all interfaces, the image's paths", () => {
    const decoded = parseConfig(deployConfigText(), "podsync.yaml", composeEnv)
    if (Either.isLeft(decoded)) throw new Error(decoded.left.message)
    const config = decoded.right
    expect(config.database.url && Redacted.value(config.database.url)).toBe("postgres://podsync:change-me@postgres:5432/podsync")
    expect(config.server).toEqual({ host: "0.0.0.0", port: 8080 })
    expect(config.dataDir).toBe("/var/lib/podsync/data")
    expect(config.reports.dir).toBe("/var/lib/podsync/reports")
    expect(config.stores.map((s) => [s.key, s.mappings])).toEqual([["acme-shopify", "/etc/podsync/mappings/acme-shopify.csv"]])
    expect(config.pod.webhooks?.publicUrl).toBe("https://podsync.example.com/webhooks/pod")
    expect(config.pod.webhooks?.clientKey).toBeUndefined()
    // Webhooks are verified with the API client secret: no separate key to set.
    expect(config.pod.webhooks?.signingKey).toBeUndefined()
  })

  it("decodes with the systemd environment: loopback, and the embedded database when DATABASE_URL is unset", () => {
    const { DATABASE_URL: _unset, ...env } = envFile("systemd", "podsync.env.example")
    const decoded = parseConfig(deployConfigText(), "podsync.yaml", { ...env, PODSYNC_HOST: "127.0.0.1", PODSYNC_PORT: "8080" })
    if (Either.isLeft(decoded)) throw new Error(decoded.left.message)
    expect(decoded.right.server.host).toBe("127.0.0.1")
    expect(decoded.right.database.url).toBeUndefined()
  })

  it("requires every secret from the environment and names each one missing", () => {
    const { required } = configPlaceholders()
    expect(required).toEqual([
      "ACME_POD_STORE_ID",
      "ACME_SHOPIFY_CLIENT_ID",
      "ACME_SHOPIFY_CLIENT_SECRET",
      "POD_CLIENT_KEY",
      "POD_CLIENT_SECRET",
      "POD_WEBHOOK_URL"
    ])
    const decoded = parseConfig(deployConfigText(), "podsync.yaml", {})
    if (Either.isRight(decoded)) throw new Error("decoded without its secrets")
    for (const name of required) expect(decoded.left.message).toContain(`environment variable ${name} is not set`)
  })

  it("holds no secret in the text: every credential key is a ${NAME}", () => {
    const credentialLines = deployConfigText().split("\n")
      .filter((line) => /^\s*(clientKey|clientSecret|signingKey|accessToken|webhookSecret|url):/.test(line))
    expect(credentialLines.length).toBe(7)
    for (const line of credentialLines) expect(line, line).toMatch(/:\s*\$\{[A-Z_]+(:-)?\}\s*(#.*)?$/)
  })
})

describe("deploy/config/mappings/acme-shopify.csv", () => {
  it("is a valid variant-matching table", () => {
    const { table, issues } = parseMappingCsv(readDeploy("config", "mappings", "acme-shopify.csv"))
    expect(issues).toEqual([])
    expect(table.rows.map((r) => [r.storeVariantId ?? r.storeSku, r.ignore])).toEqual([["44001122", false], ["TEE-BLK-M", false], [
      "GIFT-CARD",
      true
    ]])
  })
})
