import * as fs from "node:fs"
import { Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { parseConfig, resolveConfigPath } from "../../src/config/loadConfig.js"
import { minimal } from "./fixtures.js"

const read = (file: string) => fs.readFileSync(file, "utf8")

const issuesOf = (text: string, env: Record<string, string> = {}) => {
  const result = parseConfig(text, "test.yaml", env)
  if (Either.isRight(result)) throw new Error("expected the configuration to be rejected")
  return result.left.issues
}

describe("configuration", () => {
  it("accepts the simulators' and the demos' configs with no environment set", () => {
    for (const file of ["config/simulators.yaml", "config/demo.yaml", "config/demo-all.yaml"]) {
      const result = parseConfig(read(file), file, {})
      expect(Either.isRight(result) ? "ok" : result.left.message).toBe("ok")
    }
  })

  it("refuses the production example while a credential or address is unset, naming each, and takes it once they are set", () => {
    const example = read("config/podsync.example.yaml")
    const issues = issuesOf(example)
    const unset = issues.map((i) => /environment variable (\w+) is not set/.exec(i.message)?.[1])
    // No simulator fallback: every credential, address and store id comes from the environment.
    for (
      const name of [
        "POD_BASE_URL",
        "POD_CLIENT_KEY",
        "POD_CLIENT_SECRET",
        "POD_WEBHOOK_URL",
        "ACME_POD_STORE_ID",
        "ACME_WOO_URL",
        "ACME_WOO_CONSUMER_KEY",
        "ACME_WOO_CONSUMER_SECRET",
        "ACME_ETSY_KEYSTRING",
        "ACME_ETSY_REFRESH_TOKEN",
        "ACME_FEED_BASE_URL",
        "ACME_FEED_TOKEN"
      ]
    ) expect(unset).toContain(name)
    // The Shopify store takes either of two pairs: with neither set, the section says which.
    expect(issues.filter((i) => !i.message.includes("is not set"))).toEqual([{
      path: "stores[0].shopify",
      message: expect.stringContaining("expected clientId and clientSecret (a Dev Dashboard app")
    }])
    expect(example).not.toMatch(/127\.0\.0\.1:\d|sim-client|_sim_|podsync\.example\.com/)
    const env = Object.fromEntries(unset.flatMap((name) => (name === undefined ? [] : [[name, "x"]])))
    const set = parseConfig(
      example,
      "config/podsync.example.yaml",
      {
        ...env,
        ACME_SHOPIFY_CLIENT_ID: "x",
        ACME_SHOPIFY_CLIENT_SECRET: "x",
        POD_BASE_URL: "https://pod.example.net",
        POD_WEBHOOK_URL: "https://podsync.example.net/webhooks/pod",
        ACME_WOO_URL: "https://shop.example.net",
        ACME_FEED_BASE_URL: "https://feed.example.net/podsync/v1",
        ACME_ETSY_SHOP_ID: "123",
        ALERTS_SLACK_URL: "https://hooks.slack.example.net/services/T0/B0/x",
        ALERTS_WEBHOOK_URL: "https://tickets.example.net/podsync",
        ALERTS_EMAIL_FROM: "podsync <podsync@shop.example.net>",
        ALERTS_EMAIL_TO: "owner@shop.example.net",
        PODSYNC_PUBLIC_URL: "https://podsync.example.net"
      }
    )
    expect(Either.isRight(set) ? "ok" : set.left.message).toBe("ok")
  })

  it("fills in documented defaults", () => {
    const config = Either.getOrThrow(parseConfig(minimal(), "t.yaml", { POD_CLIENT_KEY: "k" }))
    expect(config.pod.authHeaders).toEqual({ key: "X-Gearment-Client-Key", secret: "X-Gearment-Client-Secret" })
    expect(config.pod.rateLimit).toEqual({ requests: 100, windowSeconds: 10, blockSeconds: 60, headroom: 0.05 })
    expect(config.dataDir).toBe("./data")
    expect(config.database.url).toBeUndefined()
    expect(config.schedules.pull).toBe("*/2 * * * *")
    expect(config.stores[0]?.shipping.default).toBe("METHOD_STANDARD")
    expect(config.stores[0]?.eligible.financialStatuses).toEqual(["PAID", "PARTIALLY_REFUNDED"])
  })

  it("replaces ${NAME} from the environment and keeps secrets redacted", () => {
    const config = Either.getOrThrow(parseConfig(minimal(), "t.yaml", { POD_CLIENT_KEY: "key-from-env" }))
    expect(Redacted.value(config.pod.clientKey)).toBe("key-from-env")
    const printed = JSON.stringify(config) + String(config.pod.clientSecret) + `${config.stores[0]?.shopify?.accessToken}`
    expect(printed).not.toContain("key-from-env")
    expect(printed).not.toContain("s3cret-value")
    expect(printed).not.toContain("shpat_abc")
  })

  it("treats ${NAME:-} with NAME unset as an absent key and ${NAME:-x} as x", () => {
    const text = minimal("database:\n  url: ${DATABASE_URL:-}\ndataDir: ${DATA_DIR:-/var/lib/podsync}\nserver:\n  port: ${PORT:-9000}")
    const config = Either.getOrThrow(parseConfig(text, "t.yaml", { POD_CLIENT_KEY: "k" }))
    expect(config.database.url).toBeUndefined()
    expect(config.dataDir).toBe("/var/lib/podsync")
    expect(config.server.port).toBe(9000)
  })

  it("leaves a list item that is only an unset ${NAME:-} out of its list, and takes it when NAME is set", () => {
    const text = minimal('console:\n  proxy:\n    userHeader: X-Forwarded-User\n    from: ["${PROXY_FROM:-}"]')
    const unset = Either.getOrThrow(parseConfig(text, "t.yaml", { POD_CLIENT_KEY: "k" }))
    expect(unset.console.proxy?.from).toEqual([])
    const set = Either.getOrThrow(parseConfig(text, "t.yaml", { POD_CLIENT_KEY: "k", PROXY_FROM: "172.30.80.10" }))
    expect(set.console.proxy?.from).toEqual(["172.30.80.10"])
  })

  it("names every mistake by its path: wrong type, unknown platform, missing variable, bad cron", () => {
    const text = `
server: { port: eighty }
pod:
  baseUrl: https://pod.example.com
  clientKey: \${POD_CLIENT_KEY}
  clientSecret: x
stores:
  - key: good-store
    platform: shopify
    podStoreId: "1"
    shopify: { shop: good.myshopify.com, accessToken: t, webhookSecret: w }
    mappings: a.csv
  - key: bad-store
    platform: magento
    podStoreId: "2"
    mappings: b.csv
schedules: { pull: "every five minutes" }
`
    const issues = issuesOf(text)
    const byPath = new Map(issues.map((i) => [i.path, i.message]))
    expect(byPath.get("pod.clientKey")).toBe("environment variable POD_CLIENT_KEY is not set")
    expect(byPath.get("server.port")).toMatch(/number/i)
    expect(byPath.get("stores[1].platform")).toBe('expected one of shopify, woocommerce, etsy, jsonfeed; got "magento"')
    expect(byPath.get("schedules.pull")).toMatch(/invalid cron expression "every five minutes"/)
    expect(issues).toHaveLength(4)
  })

  it("names a missing platform section, a bad store key, unknown keys and duplicate store keys", () => {
    const text = minimal(`  - key: Second_Store
    platform: shopify
    podStoreId: "7"
    mappings: x.csv
    shipping: { defualt: METHOD_STANDARD }`)
    const paths = issuesOf(text, { POD_CLIENT_KEY: "k" }).map((i) => i.path)
    expect(paths).toContain("stores[1].key")
    expect(paths).toContain("stores[1].shipping.defualt")

    const missingSection = minimal(`  - key: second
    platform: etsy
    podStoreId: "7"
    mappings: x.csv`)
    expect(issuesOf(missingSection, { POD_CLIENT_KEY: "k" })).toEqual([
      { path: "stores[1].etsy", message: 'a "etsy" section is required for platform etsy' }
    ])

    const duplicate = minimal(`  - key: acme-shopify
    platform: shopify
    podStoreId: "7"
    shopify: { shop: b.myshopify.com, accessToken: t, webhookSecret: w }
    mappings: x.csv`)
    expect(issuesOf(duplicate, { POD_CLIENT_KEY: "k" })).toEqual([
      { path: "stores[1].key", message: 'duplicate store key "acme-shopify"' }
    ])
  })

  it("takes a Shopify app's client id and secret or a legacy token, exactly one, naming the key to fix otherwise", () => {
    const shopify = (section: string) =>
      minimal(`  - key: second
    platform: shopify
    podStoreId: "7"
    shopify: { shop: b.myshopify.com${section} }
    mappings: x.csv`)
    const ok = (section: string) => {
      const result = parseConfig(shopify(section), "t.yaml", { POD_CLIENT_KEY: "k" })
      if (Either.isLeft(result)) throw new Error(result.left.message)
      const store = result.right.stores[1]!
      if (store.platform !== "shopify") throw new Error("not a shopify store")
      return store.shopify
    }
    const app = ok(", clientId: abc123, clientSecret: shpss_secret")
    expect([app.clientId, app.accessToken, app.webhookSecret]).toEqual(["abc123", undefined, undefined])
    expect(ok(", accessToken: shpat_t, webhookSecret: w").accessToken).toBeDefined()

    const both = issuesOf(shopify(", accessToken: shpat_t, clientId: abc123, clientSecret: shpss_secret"), { POD_CLIENT_KEY: "k" })
    expect(both).toEqual([{
      path: "stores[1].shopify.accessToken",
      message: "give either accessToken (a legacy custom app's token) or clientId and clientSecret (a Dev Dashboard app), not both"
    }])
    const neither = issuesOf(shopify(", webhookSecret: w"), { POD_CLIENT_KEY: "k" })
    expect(neither).toEqual([{
      path: "stores[1].shopify",
      message: "expected clientId and clientSecret (a Dev Dashboard app: Settings shows both), or accessToken (a legacy custom app's token)"
    }])
    expect(issuesOf(shopify(", clientId: abc123"), { POD_CLIENT_KEY: "k" })).toEqual([{
      path: "stores[1].shopify.clientSecret",
      message: "is missing: clientId comes with the app's clientSecret"
    }])
    expect(issuesOf(shopify(", accessToken: shpat_t"), { POD_CLIENT_KEY: "k" }).map((i) => i.path)).toEqual([
      "stores[1].shopify.webhookSecret"
    ])
    // The secrets never appear in the errors.
    expect(JSON.stringify(both)).not.toContain("shpss_secret")
  })

  it("reports YAML syntax errors with their line, shown with a caret under the column", () => {
    const issues = issuesOf("pod:\n  baseUrl: https://x\n  timeoutMs: [1\nstores: []\n")
    expect(issues).toHaveLength(1)
    expect(issues[0]?.path).toBe("line 4, column 1")
    expect(issues[0]?.message).toContain("YAML syntax error")
    expect(issues[0]?.message).toContain("\n    3 |   timeoutMs: [1\n    4 | stores: []\n        ^")
    // No placeholder near the mistake: no quoting hint.
    expect(issues[0]?.message).not.toContain("must be quoted")
  })

  it("gives the quoting hint only where a ${NAME} stands near the mistake", () => {
    const near = issuesOf("pod:\n  baseUrl: https://x\n  authHeaders: { key: ${KEY_HEADER}, secret: x\nstores: []\n")
    expect(near[0]?.message).toContain("(a ${NAME} inside { } or [ ] must be quoted)")
    const far = issuesOf("pod:\n  clientKey: ${POD_CLIENT_KEY}\n  baseUrl: https://x\n  timeoutMs: [1\nstores: []\n")
    expect(far[0]?.message).not.toContain("must be quoted")
  })

  it("takes webhooks.retentionDays (default 7) and the intake's bounds, and refuses a retention under a day", () => {
    const decoded = (text: string) => {
      const result = parseConfig(text, "test.yaml", { POD_CLIENT_KEY: "key" })
      if (Either.isLeft(result)) throw new Error(result.left.message)
      return result.right
    }
    expect(decoded(minimal()).webhooks).toEqual({ retentionDays: 7, maxWaiting: 2000, maxWaitSeconds: 4 })
    expect(decoded(`${minimal()}\nwebhooks:\n  retentionDays: 3\n  maxWaiting: 500\n`).webhooks).toEqual({
      retentionDays: 3,
      maxWaiting: 500,
      maxWaitSeconds: 4
    })
    expect(issuesOf(`${minimal()}\nwebhooks:\n  retentionDays: 0\n`, { POD_CLIENT_KEY: "key" }).map((issue) => issue.path)).toEqual([
      "webhooks.retentionDays"
    ])
  })

  it("says a value outside a set once, with the set, and names the key a mistyped one probably meant", () => {
    const issues = issuesOf(`${minimal()}\nlog:\n  level: loud\nschedule:\n  pull: "* * * * *"\nmystery: 1\n`, { POD_CLIENT_KEY: "k" })
    expect(issues).toEqual(expect.arrayContaining([
      { path: "log.level", message: 'expected one of trace, debug, info, warning, error, none; got "loud"' },
      { path: "schedule", message: 'unknown key "schedule"; did you mean "schedules"?' },
      {
        path: "mystery",
        message:
          'unknown key "mystery"; expected one of database, dataDir, log, tracing, server, console, webhooks, pod, stores, schedules, reports, alerts, pipeline'
      }
    ]))
    expect(issues.filter((i) => i.path === "log.level")).toHaveLength(1)
    expect(issuesOf(minimal().replace("pod:", "pod:\n  rateLimt: { requests: 5 }"), { POD_CLIENT_KEY: "k" })).toEqual([
      { path: "pod.rateLimt", message: 'unknown key "rateLimt"; did you mean "rateLimit"?' }
    ])

    // A required key typed wrong is one mistake: the near miss, not also "is missing".
    const mistyped = issuesOf(minimal().replace("mappings:", "mapings:"), { POD_CLIENT_KEY: "k" })
    expect(mistyped.find((i) => i.message.includes("did you mean"))?.message).toBe('unknown key "mapings"; did you mean "mappings"?')
    expect(mistyped.filter((i) => i.message === "is missing")).toEqual([])
  })

  it("finds the file from --config, else $PODSYNC_CONFIG, else config/podsync.yaml", () => {
    expect(resolveConfigPath(Option.some("a.yaml"), { PODSYNC_CONFIG: "b.yaml" })).toBe("a.yaml")
    expect(resolveConfigPath(Option.none(), { PODSYNC_CONFIG: "b.yaml" })).toBe("b.yaml")
    expect(resolveConfigPath(Option.none(), {})).toBe("config/podsync.yaml")
  })

  it("takes the report's store names and exchange rates, rates as exact decimals, and names each mistake by its path", () => {
    const reports = (body: string) => `${minimal()}reports:\n${body}`
    const ok = parseConfig(
      reports('  storeNames: { acme-shopify: Acme Shirts }\n  exchangeRates:\n    base: USD\n    rates: { EUR: 1.08, JPY: "0.0067" }\n'),
      "test.yaml",
      { POD_CLIENT_KEY: "k" }
    )
    if (Either.isLeft(ok)) throw new Error(ok.left.message)
    expect(ok.right.reports.storeNames).toEqual({ "acme-shopify": "Acme Shirts" })
    expect(ok.right.reports.exchangeRates).toEqual({ base: "USD", rates: { EUR: "1.08", JPY: "0.0067" } })
    // Both are optional: a configuration without them has no names and no rates.
    const plain = parseConfig(minimal(), "test.yaml", { POD_CLIENT_KEY: "k" })
    expect(Either.isRight(plain) && [plain.right.reports.storeNames, plain.right.reports.exchangeRates]).toEqual([{}, undefined])

    const issues = issuesOf(
      reports(
        "  storeNames: { acme-shop: Acme }\n  exchangeRates:\n    base: usd\n    rates: { EUR: -1, GBP: 1.0000000001, CHF: abc }\n"
      ),
      { POD_CLIENT_KEY: "k" }
    )
    const byPath = new Map(issues.map((i) => [i.path, i.message]))
    expect(byPath.get("reports.exchangeRates.base")).toBe("expected an ISO 4217 currency code such as USD, EUR, JPY")
    expect(byPath.get("reports.exchangeRates.rates.EUR")).toContain("expected a positive decimal with at most 9 decimals")
    expect(byPath.get("reports.exchangeRates.rates.GBP")).toContain("expected a positive decimal with at most 9 decimals")
    expect(byPath.get("reports.exchangeRates.rates.CHF")).toContain('got "abc"')
    // What is checked once the rest is right: the rates' currencies, the base's own rate, the stores named.
    expect(issuesOf(reports("  exchangeRates: { base: USD, rates: { yen: 0.0067 } }\n"), { POD_CLIENT_KEY: "k" })).toEqual([
      { path: "reports.exchangeRates.rates.yen", message: 'expected an ISO 4217 currency code such as USD, EUR, JPY; got "yen"' }
    ])
    expect(issuesOf(reports("  storeNames: { acme-shop: Acme }\n"), { POD_CLIENT_KEY: "k" })).toEqual([
      {
        path: "reports.storeNames.acme-shop",
        message:
          'no store "acme-shop" under stores: (the stores are acme-shopify): take it out of reports.storeNames too, or put the store back under stores: (names go by store key)'
      }
    ])
    expect(issuesOf(reports("  exchangeRates: { base: EUR, rates: { EUR: 1.1 } }\n"), { POD_CLIENT_KEY: "k" })).toEqual([
      { path: "reports.exchangeRates.rates.EUR", message: "EUR is the base currency: its rate is 1 (leave it out)" }
    ])
  })
})
