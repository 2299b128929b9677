import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { parseConfig } from "../../src/config/loadConfig.js"
import { minimal } from "./fixtures.js"

const withAlerts = (alerts: string) => minimal(`alerts:\n${alerts}`, "key")

const env = { SLACK_URL: "https://hooks.slack.com/services/T0/B0/sekret-token", SMTP_PASSWORD: "mail-pass", HOOK_SECRET: "hook-secret" }

const issuesOf = (alerts: string) => {
  const result = parseConfig(withAlerts(alerts), "test.yaml", env)
  if (Either.isRight(result)) throw new Error("expected the configuration to be rejected")
  return result.left.issues.map((i) => `${i.path}: ${i.message}`)
}

describe("the alerts: section", () => {
  it("takes the three kinds of channel, with defaults, and keeps their secrets redacted", () => {
    const result = parseConfig(
      withAlerts(`
  channels:
    - name: ops
      slack: { url: "\${SLACK_URL}" }
    - name: owner
      email: { host: smtp.example.com, user: podsync, password: "\${SMTP_PASSWORD}", from: podsync@example.com, to: [owner@example.com] }
    - name: hook
      webhook: { url: https://hooks.example.com/podsync, secret: "\${HOOK_SECRET}" }
  rules:
    - events: ["order.*"]
      stores: [acme-shopify]
      channels: [owner]
  quietHours: { from: "22:00", to: "07:00", timezone: Europe/Paris }`),
      "test.yaml",
      env
    )
    if (Either.isLeft(result)) throw new Error(result.left.message)
    const alerts = result.right.alerts
    expect(alerts?.digestMinutes).toBe(15)
    expect(alerts?.retry).toEqual({ attempts: 6, firstDelaySeconds: 30 })
    expect(alerts?.thresholds).toEqual({
      storeUnreachableMinutes: 15,
      podUnreachableMinutes: 10,
      noProgressMinutes: 30,
      databaseFailingMinutes: 5
    })
    expect(alerts?.channels[1]?.email).toMatchObject({ port: 587, tls: "starttls" })
    const slack = alerts?.channels[0]?.slack
    expect(slack && Redacted.value(slack.url)).toBe(env.SLACK_URL)
    const printed = `${JSON.stringify(alerts)} ${String(slack?.url)}`
    for (const secret of Object.values(env)) expect(printed).not.toContain(secret)
  })

  it("names every mistake by its path, with the near key for a typo", () => {
    expect(issuesOf(`
  channels:
    - name: ops
      slak: { url: https://hooks.slack.com/x }
    - name: both
      slack: { url: https://hooks.slack.com/x }
      webhook: { url: https://h.example.com, secret: s }
    - name: mail
      email: { host: smtp.example.com, from: nobody, to: [] }
  rules:
    - events: [order.hled]
      channels: [opz]
  digestMinutes: soon
  quietHours: { from: "25:00", to: "07:00", timezone: Mars/Olympus }`)).toEqual(expect.arrayContaining([
      `alerts.channels[0].slak: unknown key "slak"; did you mean "slack"?`,
      `alerts.channels[2].email.from: expected an email address, got "nobody"`,
      "alerts.channels[2].email.to: expected at least one address",
      expect.stringMatching(/^alerts\.rules\[0]\.events\[0]: unknown alert kind "order\.hled"/),
      `alerts.digestMinutes: expected a number, got "soon"`,
      "alerts.quietHours.from: expected HH:MM (24-hour)",
      expect.stringMatching(/^alerts\.quietHours\.timezone: unknown time zone "Mars\/Olympus"/)
    ]))
    expect(issuesOf(`
  channels:
    - name: both
      slack: { url: https://hooks.slack.com/x }
      webhook: { url: https://h.example.com, secret: s }`)).toEqual([
      `alerts.channels[0]: channel "both" has slack and webhook: give one kind per channel (make two channels)`
    ])
    expect(issuesOf(`
  channels:
    - name: ops
      slack: { url: https://hooks.slack.com/x }
  rules:
    - channels: [opz]
      stores: [acme]`)).toEqual([
      `alerts.rules[0].stores[0]: no store "acme" under stores: (the stores are acme-shopify): take it out of this rule too, or put the store back under stores:`,
      `alerts.rules[0].channels[0]: no channel "opz" under alerts.channels (the channels are ops): take it out of this rule too, or put the channel back under alerts.channels`
    ])
    expect(issuesOf(`
  channels:
    - name: ops
      slack: { url: https://hooks.slack.com/x }
    - name: ops
      webhook: { url: https://h.example.com, secret: s }`)).toEqual([`alerts.channels[1].name: duplicate channel name "ops"`])
  })

  it("never prints a secret URL it refuses", () => {
    const issues = issuesOf(`
  channels:
    - name: ops
      slack: { url: "not a url sekret-token" }`)
    expect(issues).toEqual(["alerts.channels[0].slack.url: expected an absolute URL such as https://host/path"])
  })

  it("checks the stores a rule names", () => {
    const result = parseConfig(
      withAlerts(`
  channels:
    - name: ops
      slack: { url: https://hooks.slack.com/x }
  rules:
    - stores: [acme]`),
      "test.yaml",
      env
    )
    expect(Either.isLeft(result) ? result.left.issues.map((i) => `${i.path}: ${i.message}`) : []).toEqual([
      `alerts.rules[0].stores[0]: no store "acme" under stores: (the stores are acme-shopify): take it out of this rule too, or put the store back under stores:`
    ])
  })
})
