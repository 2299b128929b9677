// Webhook ingest through kill -9: `podsync start` (dist/) takes a burst of concurrent signed Shopify
// deliveries over real HTTP, some of them sent twice, and is killed -9 in the middle of it. Every
// delivery answered 200 was committed before its answer, so after a restart every one of them is
// there (its re-sending is answered "duplicate"), and no delivery is stored twice. On PGlite always,
// on PostgreSQL too when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { Agent } from "node:http"
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { send, signedDelivery, type Target } from "../../bench/webhook-load.js"
import { daemonConfig, exited, sharedStack, startDaemon, stopDaemons } from "../support/pipeline.js"

const STORE = "demo-shopify"
const CONNECTIONS = 50
/** Deliveries answered 200 before the kill. */
const ANSWERED_BEFORE_KILL = 400

type Delivery = ReturnType<typeof signedDelivery>
const eventOf = (delivery: Delivery) => delivery.headers["x-shopify-event-id"]

/** The inbox's delivery ids of the store, read once the daemon has stopped. */
const storedKeys = async (database: { readonly dataDir?: string; readonly url?: string }): Promise<ReadonlyArray<string>> => {
  const query = `select delivery_id from webhook_inbox where source = '${STORE}'`
  if (database.url !== undefined) {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query<{ delivery_id: string }>(query)).rows.map((r) => r.delivery_id)
    } finally {
      await client.end()
    }
  }
  const db = await PGlite.create(database.dataDir)
  try {
    return (await db.query<{ delivery_id: string }>(query)).rows.map((r) => r.delivery_id)
  } finally {
    await db.close()
  }
}

const databases = [
  { name: "pglite" as const },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "postgres" as const, url: process.env.TEST_DATABASE_URL }] : [])
]

describe("webhook ingest through kill -9", () => {
  const stack = sharedStack({ podRateLimit: false })

  for (const database of databases) {
    it(`loses no delivery answered 200 and stores none twice, killed mid-burst (${database.name})`, async () => {
      const schema = `ingest_${randomUUID().replaceAll("-", "").slice(0, 12)}`
      const admin = database.name === "postgres" ? new pg.Client({ connectionString: database.url }) : undefined
      await admin?.connect()
      await admin?.query(`create schema "${schema}"`)
      const databaseUrl = database.name === "postgres" ? `${database.url}?options=-c%20search_path%3D${schema}` : undefined
      try {
        const { port, config } = await daemonConfig(stack, {
          name: `ingest-${database.name}`,
          ...(databaseUrl === undefined ? {} : { databaseUrl }),
          pull: "0 0 * * * *",
          reconcile: "0 0 * * * *"
        })
        const target: Target = {
          url: `http://127.0.0.1:${port}/webhooks/${STORE}`,
          secret: stack.shopify.webhookSecret,
          shop: stack.shopify.shop
        }
        let daemon = await startDaemon(config, port)

        const sent: Array<Delivery> = []
        const answered200 = new Set<string>()
        let stop = false
        let killed: Promise<unknown> | undefined
        const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
        const sender = async () => {
          while (!stop) {
            // One in eight is a copy of a delivery already sent: a sender's retry, in the middle of the burst.
            const copy = sent.length > 20 && Math.random() < 0.125 ? sent[Math.floor(Math.random() * sent.length)] : undefined
            const delivery = copy ?? signedDelivery(target)
            if (copy === undefined) sent.push(delivery)
            const answer = await send(agent, target, delivery)
            if (answer.status === 200) answered200.add(eventOf(delivery))
            if (answer.status !== 200 && answer.status !== 0) throw new Error(`a good delivery was answered ${answer.status}`)
            if (killed === undefined && answered200.size >= ANSWERED_BEFORE_KILL) {
              daemon.kill("SIGKILL")
              killed = exited(daemon)
            }
            if (killed !== undefined && answer.status === 0) stop = true
          }
        }
        await Promise.all(Array.from({ length: CONNECTIONS }, sender))
        agent.destroy()
        await killed
        // Killed with requests in flight: some were sent and never answered.
        expect(sent.length).toBeGreaterThan(answered200.size)

        daemon = await startDaemon(config, port)
        const again = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
        const resent = await Promise.all(sent.map((delivery) => send(again, target, delivery, true)))
        again.destroy()
        await stopDaemons(daemon)

        // Every delivery answered 200 before the kill survived it: its copy is a duplicate now.
        const statusByEvent = new Map(sent.map((delivery, i) => [eventOf(delivery), JSON.parse(resent[i]?.body ?? "{}").status]))
        const lost = [...answered200].filter((event) => statusByEvent.get(event) !== "duplicate")
        expect(lost).toEqual([])
        expect(resent.every((answer) => answer.status === 200)).toBe(true)
        // Each delivery is stored once, whatever was in flight when the daemon died.
        const keys = await storedKeys(
          databaseUrl === undefined ? { dataDir: path.join(stack.dir, "data") } : { url: databaseUrl }
        )
        expect(keys).toHaveLength(new Set(keys).size)
        expect([...keys].sort()).toEqual(sent.map((d) => `${STORE}:shopify-event:orders/updated:${eventOf(d)}`).sort())
      } finally {
        await admin?.query(`drop schema if exists "${schema}" cascade`)
        await admin?.end()
      }
    }, 240_000)
  }
})
