import * as fs from "node:fs"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseDocument } from "yaml"
import { parseConfig } from "../../src/config/loadConfig.js"

/**
 * config/podsync.example.yaml as a seller keeps it: copied, their variables set, the stores and
 * channels they do not use taken out; nothing in it that mails someone else or waits for a time zone.
 */
const EXAMPLE = "config/podsync.example.yaml"
const example = fs.readFileSync(EXAMPLE, "utf8")
/** The example without its comments (which show the `${NAME}` syntax itself). */
const settings = example.split("\n").map((line) => line.replace(/(^|\s)#.*$/, "")).join("\n")

/** Every variable the example reads: with `required`, only those without a default. */
const variablesOf = (
  text: string,
  required = false
) => [
  ...new Set(
    [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g)].filter((m) => !required || m[2] === undefined).map((m) => m[1]!)
  )
]

/** A value of the right shape for each required variable, as a seller would set it. */
const valueFor = (name: string): string => {
  if (name.endsWith("_EMAIL_FROM")) return "podsync <podsync@shop.example.net>"
  if (name.endsWith("_EMAIL_TO")) return "owner@shop.example.net, night-shift@shop.example.net"
  if (name.endsWith("_SHOP_ID")) return "48213795"
  if (name === "POD_WEBHOOK_URL") return "https://podsync.shop.example.net/webhooks/pod"
  if (name.endsWith("_URL")) return `https://${name.toLowerCase().replaceAll("_", "-")}.example.net/api`
  if (name === "ALERTS_SMTP_HOST") return "smtp.shop.example.net"
  return `${name.toLowerCase()}-value`
}

const sellerEnv: Record<string, string> = {
  ...Object.fromEntries(variablesOf(settings, true).map((name) => [name, valueFor(name)])),
  // The Shopify store's Dev Dashboard app (its legacy token is the other, optional, form).
  ACME_SHOPIFY_CLIENT_ID: "client-id",
  ACME_SHOPIFY_CLIENT_SECRET: "client-secret"
}

const load = (text: string, env: Record<string, string> = sellerEnv) => parseConfig(text, EXAMPLE, env)
const issuesOf = (text: string, env: Record<string, string> = sellerEnv) => {
  const result = load(text, env)
  return Either.isLeft(result) ? result.left.issues.map((i) => `${i.path}: ${i.message}`) : []
}

/** The example with only the named stores (and channels) left, as a seller edits it. */
const keepOnly = (stores: ReadonlyArray<string>, channels?: ReadonlyArray<string>) => {
  const document = parseDocument(example)
  const storeList = document.getIn(["stores"]) as { items: Array<{ get: (key: string) => unknown }> }
  storeList.items = storeList.items.filter((item) => stores.includes(String(item.get("key"))))
  if (channels !== undefined) {
    const channelList = document.getIn(["alerts", "channels"]) as { items: Array<{ get: (key: string) => unknown }> }
    channelList.items = channelList.items.filter((item) => channels.includes(String(item.get("name"))))
  }
  return document.toString()
}

describe("the example configuration a seller keeps", () => {
  it("names every variable it reads in README's Going live, POD_BASE_URL and POD_WEBHOOK_URL among them", () => {
    const readme = fs.readFileSync("README.md", "utf8")
    const goingLive = readme.split(/^## /m).find((section) => section.startsWith("Going live")) ?? ""
    const variables = variablesOf(settings)
    expect(variables).toEqual(expect.arrayContaining(["POD_BASE_URL", "POD_WEBHOOK_URL", "ALERTS_EMAIL_FROM", "ALERTS_EMAIL_TO"]))
    expect(variables.filter((name) => !new RegExp(`\\b${name}\\b`).test(goingLive))).toEqual([])
  })

  it("takes every address, recipient and credential from the environment: the email goes where the seller says", () => {
    const config = Either.getOrThrow(load(example))
    const email = config.alerts?.channels.find((c) => c.email !== undefined)?.email
    expect(email?.from).toBe("podsync <podsync@shop.example.net>")
    expect(email?.to).toEqual(["owner@shop.example.net", "night-shift@shop.example.net"])
    expect(example).not.toMatch(/@acme\.example|owner@/)
  })

  it("has no quiet hours unless asked, and takes them when both ends are set", () => {
    expect(Either.getOrThrow(load(example)).alerts?.quietHours).toEqual({ timezone: "UTC" })
    const asked = Either.getOrThrow(
      load(example, { ...sellerEnv, ALERTS_QUIET_FROM: "22:00", ALERTS_QUIET_TO: "07:00", ALERTS_QUIET_TIMEZONE: "Europe/Paris" })
    )
    expect(asked.alerts?.quietHours).toEqual({ from: "22:00", to: "07:00", timezone: "Europe/Paris" })
    expect(issuesOf(example, { ...sellerEnv, ALERTS_QUIET_FROM: "22:00" })).toEqual([
      "alerts.quietHours.to: give both from and to (or neither: no quiet hours)"
    ])
  })

  it("gives each store a mapping file of its own, and each file is there", () => {
    const files = Either.getOrThrow(load(example)).stores.map((store) => store.mappings)
    expect(new Set(files).size).toBe(files.length)
    expect(files.filter((file) => !fs.existsSync(file))).toEqual([])
  })

  it("loads with one store of each platform kept alone, when the rules name nothing else", () => {
    for (const store of ["acme-shopify"]) expect(issuesOf(keepOnly([store]))).toEqual([])
    // The rules name acme-shopify and the channels: the other stores need those lines edited, and are told where.
    expect(issuesOf(keepOnly(["acme-woo", "acme-etsy"]))).toEqual([
      'alerts.rules[0].stores[0]: no store "acme-shopify" under stores: (the stores are acme-woo, acme-etsy): take it out of this rule too, or put the store back under stores:'
    ])
  })

  it("says both places to edit for every store and channel taken out but still named, in one go", () => {
    const text = keepOnly(["acme-etsy"], ["ops"]).replace("storeNames: {}", "storeNames: { acme-woo: Acme Mugs }")
    expect(issuesOf(text)).toEqual([
      'reports.storeNames.acme-woo: no store "acme-woo" under stores: (the stores are acme-etsy): take it out of reports.storeNames too, or put the store back under stores: (names go by store key)',
      'alerts.rules[0].stores[0]: no store "acme-shopify" under stores: (the stores are acme-etsy): take it out of this rule too, or put the store back under stores:',
      'alerts.rules[0].channels[0]: no channel "owner" under alerts.channels (the channels are ops): take it out of this rule too, or put the channel back under alerts.channels',
      'alerts.rules[1].channels[1]: no channel "tickets" under alerts.channels (the channels are ops): take it out of this rule too, or put the channel back under alerts.channels'
    ])
  })
})

describe("pod.webhooks.publicUrl", () => {
  const withUrl = (url: string) => issuesOf(example, { ...sellerEnv, POD_WEBHOOK_URL: url })

  it("must be HTTPS: the POD service delivers to public HTTPS addresses only", () => {
    expect(withUrl("http://podsync.shop.example.net/webhooks/pod")).toEqual([
      expect.stringMatching(
        /^pod\.webhooks\.publicUrl: expected a public https:\/\/ URL .*got "http:\/\/podsync\.shop\.example\.net\/webhooks\/pod"/
      )
    ])
    expect(withUrl("http://10.0.0.7:8080/webhooks/pod")).toHaveLength(1)
    expect(withUrl("https://podsync.shop.example.net/webhooks/pod")).toEqual([])
  })

  it("may be plain HTTP on this machine, for a trial against the simulator", () => {
    for (const url of ["http://127.0.0.1:8080/webhooks/pod", "http://localhost:8080/webhooks/pod", "http://[::1]:8080/webhooks/pod"]) {
      expect(withUrl(url)).toEqual([])
    }
  })
})
