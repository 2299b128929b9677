import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { startWebhookReceiver, type WebhookReceiver } from "../support/alertReceivers.js"
import {
  exited,
  freePort,
  getJson,
  post,
  replicaSuite,
  sharedStack,
  type Stack,
  startDaemon,
  stopDaemons,
  waitFor,
  writeDaemonConfig
} from "../support/pipeline.js"

const SECRET = "e2e-alert-secret"
const HELD = 4
const KILLS = 3
/** The channel's lease with `timeoutSeconds: 3` (AlertSender: twice the timeout and 10 s, at least 20 s). */
const CHANNEL_LEASE_MS = 20_000

/** A daemon config against the stack with one signed webhook channel to `receiver`, alerts sent at once. */
const alertingConfig = (stack: Stack, port: number, receiver: WebhookReceiver, databaseUrl?: string) => {
  const file = writeDaemonConfig(stack, port, { ...(databaseUrl === undefined ? {} : { databaseUrl }), name: `alerts-${port}` })
  fs.appendFileSync(
    file,
    [
      "",
      "alerts:",
      "  channels:",
      "    - name: tickets",
      `      webhook: { url: "${receiver.url}/podsync", secret: ${SECRET} }`,
      "      timeoutSeconds: 3",
      "  digestMinutes: 0",
      "  retry: { attempts: 20, firstDelaySeconds: 0.5 }",
      ""
    ].join("\n")
  )
  return file
}

/** Orders whose only line no mapping row knows: each is held (unmatched), which is an alert. */
const unmatchedOrders = async (stack: Stack, count: number) => {
  for (let i = 0; i < count; i++) {
    await post(`${stack.shopify.url}/__sim/orders`, {
      financialStatus: "PAID",
      lineItems: [{ sku: `NOT-MAPPED-${i}`, title: "Mystery Mug", quantity: 1, price: "12.00" }]
    })
  }
}

const heldCount = async (port: number) => {
  const status = await getJson(`http://127.0.0.1:${port}/status`)
  return (status.held as Array<{ count: number }>).reduce((n, h) => n + h.count, 0)
}

/**
 * The daemon holds the orders (each move writing its alert) and tries to send while the receiver
 * never answers; it is killed with -9 then, again and again. When the receiver answers at last,
 * each alert is delivered once: none lost with a killed process, none acknowledged twice.
 */
const survivesKills = (stack: () => Stack, databaseUrl?: string) => async () => {
  const receiver = await startWebhookReceiver({ secret: SECRET, answer: () => "hang" })
  const port = await freePort()
  const config = alertingConfig(stack(), port, receiver, databaseUrl)
  await unmatchedOrders(stack(), HELD)
  let daemon = await startDaemon(config, port)
  try {
    await waitFor(() => heldCount(port), (n) => n === HELD, 60_000)
    // From each restart's readiness to its first send: the killed predecessor held the channel's lease.
    const resendAfterMs: Array<number> = []
    for (let kill = 0; kill <= KILLS; kill++) {
      // Killed while its send hangs: the alerts are in the outbox, none acknowledged.
      await waitFor(async () => receiver.requests.length, (n) => n > kill, 60_000)
      if (kill === KILLS) break
      daemon.kill("SIGKILL")
      await exited(daemon)
      daemon = await startDaemon(config, port)
      const ready = Date.now()
      const sentAt = await waitFor(async () => receiver.requests[kill + 1]?.receivedAt ?? 0, (at) => at > 0, 60_000)
      resendAfterMs.push(sentAt - ready)
    }
    expect(receiver.delivered()).toEqual([])
    // The successor sent again without waiting out the dead sender's lease: on the embedded database it
    // frees it at start, on PostgreSQL one send's timeout after the holder's session is seen gone.
    expect(Math.max(...resendAfterMs), `sent again ${resendAfterMs.join(", ")} ms after each restart`).toBeLessThan(
      CHANNEL_LEASE_MS / 2
    )

    receiver.answer = () => 200
    await waitFor(async () => receiver.deliveredAlertIds().length, (n) => n >= HELD, 90_000)
    // The daemon's own account settles: every alert sent, none pending or failed. Then it is stopped,
    // so nothing it still had in flight can arrive after the count below (instead of a fixed while more).
    const status = await waitFor(
      () => getJson(`http://127.0.0.1:${port}/status`),
      (s) => s.alerts?.pending === 0 && s.alerts?.sent === HELD,
      60_000
    )
    await stopDaemons(daemon)
    const ids = receiver.deliveredAlertIds()
    expect(ids).toHaveLength(HELD)
    expect(new Set(ids).size).toBe(HELD)
    expect(receiver.requests.every((r) => r.verified === true)).toBe(true)
    const titles = receiver.delivered().flatMap((r) =>
      (JSON.parse(r.body) as { alerts: Array<{ title: string }> }).alerts.map((a) => a.title)
    )
    expect(titles.every((t) => /^demo-shopify:\d+ \(#\d+\) held: unmatched SKU$/.test(t))).toBe(true)
    expect(status.alerts).toMatchObject({ pending: 0, sent: HELD, failed: [] })
  } finally {
    await stopDaemons(daemon)
    await receiver.close()
  }
}

describe("alerts through kill -9, on the embedded database", () => {
  const stack = sharedStack()
  it("delivers each alert once", survivesKills(() => stack), 300_000)
})

const url = process.env.TEST_DATABASE_URL

describe.runIf(url)("alerts through kill -9, on PostgreSQL", () => {
  const suite = replicaSuite(url, "alerts")
  it("delivers each alert once", survivesKills(() => suite.stack, suite.databaseUrl), 300_000)
})
