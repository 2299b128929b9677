import { Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseConfig } from "../../src/config/loadConfig.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { compose, configPlaceholders, deployConfigText, dockerfile, envFile, exampleMappingsDir, filledSecrets } from "./deployFiles.js"
import { runtimeMetadata } from "./imageLayout.js"

/**
 * config/podsync.example.yaml is the one configuration of every deployment (compose, systemd,
 * Kubernetes): decoded by podsync's own loader with each deployment's environment, its secrets
 * filled in as a seller would.
 */

const imageEnv = runtimeMetadata(dockerfile(), "runtime").env
const composeService = compose().services["podsync"]
const unitEnv = (text: string) =>
  Object.fromEntries([...text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]))

const decode = (env: Record<string, string>) => {
  const decoded = parseConfig(deployConfigText(), "podsync.yaml", env)
  if (Either.isLeft(decoded)) throw new Error(decoded.left.message)
  return decoded.right
}

describe("config/podsync.example.yaml as every deployment runs it", () => {
  it("decodes with the compose environment: PostgreSQL, all interfaces, the image's paths, the console behind Caddy", () => {
    const config = decode({
      ...imageEnv,
      ...filledSecrets(),
      ...composeService?.environment,
      DATABASE_URL: "postgres://podsync:secret-db-password@postgres:5432/podsync"
    })
    expect(config.database.url && Redacted.value(config.database.url)).toBe("postgres://podsync:secret-db-password@postgres:5432/podsync")
    expect(config.server).toMatchObject({ host: "0.0.0.0", port: 8080 })
    expect(config.dataDir).toBe("/var/lib/podsync/data")
    expect(config.reports.dir).toBe("/var/lib/podsync/reports")
    expect(config.stores.map((s) => [s.key, s.mappings])).toEqual(
      ["acme-shopify", "acme-woo", "acme-etsy", "acme-feed"].map((key) => [key, `/etc/podsync/mappings/${key}.csv`])
    )
    expect(config.console.proxy).toMatchObject({ userHeader: "X-Forwarded-User", from: ["172.30.80.10"] })
    expect(config.alerts?.channels.map((c) => c.name)).toEqual(["ops", "owner", "tickets"])
    expect(config.alerts?.linkBaseUrl).toBe("https://podsync.acme-shirts.test")
    expect(config.pod.webhooks?.publicUrl).toBe("https://podsync.acme-shirts.test/webhooks/pod")
    // Webhooks are verified with the API client secret: no separate key to set.
    expect(config.pod.webhooks?.signingKey).toBeUndefined()
  })

  it("decodes with the systemd unit's environment: loopback, the state directories, the embedded database without DATABASE_URL", () => {
    const unit = unitEnv(fs.readFileSync(path.join(import.meta.dirname, "../../deploy/systemd/podsync.service"), "utf8"))
    const { DATABASE_URL: _unset, ...secrets } = filledSecrets()
    const config = decode({ ...secrets, ...unit, PODSYNC_CONSOLE_PROXY_FROM: "127.0.0.1" })
    expect(config.server).toMatchObject({ host: "127.0.0.1", port: 8080 })
    expect(config.database.url).toBeUndefined()
    expect(config.dataDir).toBe("/var/lib/podsync/data")
    expect(config.reports.dir).toBe("/var/lib/podsync/reports")
    expect(config.stores[0]?.mappings).toBe("/etc/podsync/mappings/acme-shopify.csv")
    expect(config.console.proxy?.from).toEqual(["127.0.0.1"])
  })

  it("points nowhere by default: the POD service's address and every credential must be set, each named when missing", () => {
    const { required } = configPlaceholders()
    expect(required).toContain("POD_BASE_URL")
    const decoded = parseConfig(deployConfigText(), "podsync.yaml", imageEnv)
    if (Either.isRight(decoded)) throw new Error("decoded without its secrets")
    for (const name of required) expect(decoded.left.message).toContain(`environment variable ${name} is not set`)
    // The env examples leave every value empty: an empty value is refused like a missing one.
    const fromExample = parseConfig(deployConfigText(), "podsync.yaml", { ...imageEnv, ...envFile(".env.example") })
    if (Either.isRight(fromExample)) throw new Error("decoded with the example's empty values")
    expect(fromExample.left.message).toContain("pod.baseUrl: environment variable POD_BASE_URL is not set")
  })

  it("holds no secret in the text: every credential key is a ${NAME}", () => {
    const credentialLines = deployConfigText().split("\n")
      .filter((line) =>
        /^\s*(clientKey|clientSecret|signingKey|accessToken|webhookSecret|previousWebhookSecret|consumerKey|consumerSecret|sharedSecret|refreshToken|token|password|passwordHash|sessionSecret):/
          .test(line)
      )
    expect(credentialLines.length).toBeGreaterThanOrEqual(12)
    for (const line of credentialLines) expect(line, line).toMatch(/:\s*"?\$\{[A-Z_]+(:-)?\}"?\s*(#.*)?$/)
  })
})

describe("config/mappings/acme-*.csv, the mapping files the example's stores name", () => {
  it.each(["acme-shopify", "acme-woo", "acme-etsy", "acme-feed"])("%s.csv is a valid variant-matching table", (store) => {
    const { table, issues } = parseMappingCsv(fs.readFileSync(path.join(exampleMappingsDir, `${store}.csv`), "utf8"))
    expect(issues).toEqual([])
    expect(table.rows.length).toBeGreaterThan(0)
  })
})
