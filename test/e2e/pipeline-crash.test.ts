import { describe, expect, it } from "vitest"
import { createOrders, driveUntil, expectEachOrderOnce, post, sharedStack, daemonConfig } from "../support/pipeline.js"
import { exited, startDaemon, statusOf, stopDaemons } from "../support/pipeline.js"

const ORDERS = 60
const KILLS = 10

describe("the pipeline through kill -9 and faults", () => {
  const stack = sharedStack()

  it(`loses and duplicates nothing when the daemon is killed ${KILLS} times amid commit-then-drop and 5xx faults`, async () => {
    const { port, config } = await daemonConfig(stack)
    await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "commitThenDrop", probability: 0.2 })
    await post(`${stack.pod.url}/__sim/faults`, { route: "POST /api/v3/orders/draft", kind: "error5xx", probability: 0.1, status: 502 })
    await post(`${stack.shopify.url}/__sim/faults`, { operation: "fulfillmentCreate", kind: "commitThenDrop", probability: 0.2 })
    const ids = await createOrders(stack, ORDERS)

    let daemon = await startDaemon(config, port)
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        // Let it work a random while (pulling, drafting, fulfilling), then kill it mid-flight.
        await new Promise((r) => setTimeout(r, 700 + Math.floor(Math.random() * 1800)))
        if (kill % 2 === 1) {
          await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true }).catch(() => undefined)
          await post(`${stack.pod.url}/__sim/ship-all`).catch(() => undefined)
        }
        daemon.kill("SIGKILL")
        await exited(daemon)
        daemon = await startDaemon(config, port)
      }
      // Faults off for the finish, so the last orders need not wait out random failures.
      await fetch(`${stack.pod.url}/__sim/faults`, { method: "DELETE" })
      await fetch(`${stack.shopify.url}/__sim/faults`, { method: "DELETE" })
      const final = await driveUntil(stack, () => statusOf(port), (s) => (s.fulfilled ?? 0) === ORDERS, 240_000)
      expect(final).toEqual({ fulfilled: ORDERS })

      const { pod, shop } = await expectEachOrderOnce(stack, ids)
      expect(Object.values(shop.notificationsByOrder).every((n) => n === 1)).toBe(true)
      // The faults did fire: the run went through the in-doubt paths, not around them.
      expect(pod.connectionsDropped).toBeGreaterThan(0)
    } finally {
      await stopDaemons(daemon)
    }
  }, 480_000)
})
