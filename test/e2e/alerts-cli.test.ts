import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSmtpReceiver, startWebhookReceiver, type SmtpReceiver, type WebhookReceiver } from "../support/alertReceivers.js"
import { podsync, tempDir } from "../support/cli.js"

describe("podsync alerts test", () => {
  let good: WebhookReceiver
  let broken: WebhookReceiver
  let smtp: SmtpReceiver
  const dir = tempDir("alerts-cli")
  const config = path.join(dir, "podsync.yaml")

  beforeAll(async () => {
    good = await startWebhookReceiver({ secret: "cli-secret" })
    broken = await startWebhookReceiver({ answer: () => 500 })
    smtp = await startSmtpReceiver({ user: "alerts", password: "right-password" })
    fs.writeFileSync(
      config,
      [
        "pod:",
        "  baseUrl: http://127.0.0.1:9",
        "  clientKey: k",
        "  clientSecret: s",
        "stores: []",
        "alerts:",
        "  channels:",
        "    - name: tickets",
        `      webhook: { url: "${good.url}/in", secret: cli-secret }`,
        "    - name: chat",
        `      slack: { url: "${broken.url}/services/T0/B0/very-secret-token" }`,
        "    - name: mail",
        `      email: { host: 127.0.0.1, port: ${smtp.port}, tls: none, user: alerts, password: wrong-password-123, from: podsync@example.com, to: [owner@example.com] }`
      ].join("\n")
    )
  })
  afterAll(async () => {
    await Promise.all([good.close(), broken.close(), smtp.close()])
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("sends a test message through each channel and says what happened, without a secret in sight", async () => {
    const result = await podsync(["alerts", "test", "--config", config])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`tickets (webhook to ${new URL(good.url).host}): sent`)
    expect(result.stdout).toContain(`chat (slack to ${new URL(broken.url).host}): FAILED: HTTP 500`)
    expect(result.stdout).toMatch(/mail \(email to owner@example\.com via 127\.0\.0\.1:\d+\): FAILED: SMTP 535/)
    expect(result.stderr).toContain("podsync: 2 of 3 alert channel(s) failed")
    for (const secret of ["very-secret-token", "wrong-password-123", "cli-secret"]) {
      expect(result.stdout + result.stderr).not.toContain(secret)
    }
    expect(good.requests).toHaveLength(1)
    expect(good.requests[0]?.verified).toBe(true)
    expect(JSON.parse(good.requests[0]?.body ?? "{}").subject).toBe("podsync: podsync test alert")
  })

  it("sends through the one channel named, and names the channels when the name is wrong", async () => {
    const one = await podsync(["alerts", "test", "--channel", "tickets", "--config", config])
    expect(one.code).toBe(0)
    expect(one.stdout.trim().split("\n")).toEqual([`tickets (webhook to ${new URL(good.url).host}): sent`])
    const wrong = await podsync(["alerts", "test", "--channel", "tickts", "--config", config])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain(`no alert channel is named "tickts"; the channels are tickets, chat, mail`)
  })
})
