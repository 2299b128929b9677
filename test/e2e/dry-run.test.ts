/**
 * Issue 37, the dry run, with the real daemon process against the simulators: `podsync start --dry-run`
 * pulls, plans and looks up live orders but sends nothing that changes anything (the POD simulator sees
 * no create and no other write, the store no write, no webhook is registered), and records each order's
 * would-be draft in its story, once, whatever the loop turns. Restarted without --dry-run, the daemon
 * drafts exactly those orders, once each. On the embedded database, and on PostgreSQL (TEST_DATABASE_URL).
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse, stringify } from "yaml"
import { podsync, spawnPodsync, waitForHttp } from "../support/cli.js"
import { freePort, getJson, startDaemon, statusOf, stopDaemons, waitFor } from "../support/pipeline.js"
import { type PlatformSetup, shopifySetup, wooCommerceSetup } from "../support/storePlatforms.js"
import { demoLine, startStoreStack, type StorePlatform, type StoreStack, writeStoreDaemonConfig } from "../support/stores.js"
import { pullEverySecond, waitForPulls } from "../support/turns.js"

interface Platform {
  readonly platform: StorePlatform
  readonly setup: PlatformSetup<any>
  /** The store simulator's writes, by operation, from its stats. */
  readonly writes: (stats: any) => Record<string, number>
}

const PLATFORMS: ReadonlyArray<Platform> = [
  // Shopify's Admin API is GraphQL: every write is a mutation.
  { platform: "shopify", setup: shopifySetup, writes: (stats) => stats.mutations },
  {
    platform: "woocommerce",
    setup: wooCommerceSetup,
    writes: (stats) =>
      Object.fromEntries(
        Object.entries(stats.requestsByOperation as Record<string, number>).filter(([operation]) =>
          !/\.(list|get|providers)$/.test(operation)
        )
      )
  }
]

interface Database {
  readonly name: "embedded" | "postgres"
  readonly url?: string
}

const DATABASES: ReadonlyArray<Database> = [
  { name: "embedded" },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "postgres" as const, url: process.env.TEST_DATABASE_URL }] : [])
]

const ORDERS = 6

/** POSTs at the POD service that change nothing there (answers only): the Economy coverage check and the price quote. */
const READ_POSTS = new Set(["POST /api/v3/shipping/economy/coverage/check", "POST /api/v3/orders/price"])

/** Requests the POD simulator saw that change something there, by route. */
const podWrites = (stats: { readonly requests: Record<string, number> }) =>
  Object.fromEntries(Object.entries(stats.requests).filter(([route]) => /^(POST|PUT|PATCH|DELETE) /.test(route) && !READ_POSTS.has(route)))

interface Run {
  readonly stack: StoreStack
  readonly sim: { readonly url: string; readonly close: () => Promise<void> }
  readonly config: string
  readonly port: number
  readonly key: string
  readonly schema?: string
}

const CASES = PLATFORMS.flatMap((p) => DATABASES.map((d) => ({ ...p, database: d, label: `${p.platform}, ${d.name} database` })))

describe.each(CASES)("the daemon in dry run ($label)", (c) => {
  let run: Run
  const admin = c.database.url === undefined ? undefined : new pg.Client({ connectionString: c.database.url })

  beforeAll(async () => {
    const key = `dry-${c.platform}`
    const stack = await startStoreStack(key)
    const sim = await c.setup.start()
    const port = await freePort()
    // POD webhooks configured: a dry run must not register them (a write at the service); the real run does.
    const config = pullEverySecond(writeStoreDaemonConfig(stack, port, {
      key,
      platform: c.platform,
      podStoreId: `store-${key}`,
      section: c.setup.section(sim)
    }, {
      webhooks: { publicUrl: `http://127.0.0.1:${port}/webhooks/pod` }
    }))
    let schema: string | undefined
    if (admin !== undefined && c.database.url !== undefined) {
      schema = `dry_${randomUUID().replaceAll("-", "").slice(0, 12)}`
      await admin.connect()
      await admin.query(`create schema "${schema}"`)
      const document = parse(fs.readFileSync(config, "utf8"))
      fs.writeFileSync(config, stringify({ database: { url: `${c.database.url}?options=-c%20search_path%3D${schema}` }, ...document }))
    }
    run = { stack, sim, config, port, key, ...(schema === undefined ? {} : { schema }) }
  }, 60_000)

  afterAll(async () => {
    if (admin !== undefined) {
      if (run?.schema !== undefined) await admin.query(`drop schema if exists "${run.schema}" cascade`)
      await admin.end()
    }
    await run?.sim.close()
    await run?.stack.close()
  })

  it("sends nothing, records each order's would-be draft once, and drafts exactly those orders once when switched off", async () => {
    const ids: Array<string> = []
    for (let i = 0; i < ORDERS; i++) ids.push(await c.setup.createOrder(run.sim, demoLine(i)))
    const refs = ids.map((id) => `${run.key}:${id}`)

    const dry = spawnPodsync(["start", "--dry-run", "--config", run.config])
    try {
      await waitForHttp(`http://127.0.0.1:${run.port}/readyz`, 90_000).catch((error) => {
        throw new Error(`${(error as Error).message}\n${dry.output()}`)
      })
      // Every order is planned and looked up, and its would-be draft recorded.
      const recorded = await waitFor(
        () => getJson(`http://127.0.0.1:${run.port}/status`),
        (s) => s.dryRun?.recorded?.find((r: { kind: string }) => r.kind === "draft")?.count === ORDERS,
        90_000
      )
      expect(recorded.dryRun.recorded).toEqual([{ storeKey: run.key, kind: "draft", count: ORDERS }])
      expect(await statusOf(run.port)).toEqual({ ready: ORDERS })
      // Several more pulls and loop turns (each pull wakes the stages): nothing is recorded twice, nothing is sent.
      await waitForPulls(run.port, [run.key], 3)

      for (const ref of refs) {
        const story = await getJson(`http://127.0.0.1:${run.port}/explain?ref=${encodeURIComponent(ref)}`)
        const would = story.events.filter((e: { wouldSend?: unknown }) => e.wouldSend !== undefined)
        expect(would).toHaveLength(1)
        expect(would[0].reason).toMatch(/^dry run: would create the POD draft \(1 line, /)
        // The exact request it would send, with the order's reference id.
        expect(would[0].wouldSend).toMatchObject({
          kind: "draft",
          method: "POST",
          path: "/api/v3/orders/draft",
          body: { data: { reference_id: ref, store_id: `store-${run.key}` } }
        })
        expect(story.state).toBe("ready")
      }
      const text = await podsync(["explain", refs[0]!, "--config", run.config])
      expect(text.stdout).toContain(`would send: POST /api/v3/orders/draft {"data":{`)

      // Said wherever the daemon is watched.
      expect(await getJson(`http://127.0.0.1:${run.port}/healthz`)).toEqual({ status: "ok", dryRun: true })
      expect((await getJson(`http://127.0.0.1:${run.port}/readyz`)).dryRun).toBe(true)
      const status = await podsync(["status", "--config", run.config])
      expect(status.stdout).toContain(
        `DRY RUN: nothing is sent to the POD service or the stores; recorded instead: ${run.key} would-be drafts ${ORDERS}`
      )
      const overview = await (await fetch(`http://127.0.0.1:${run.port}/console`)).text()
      expect(overview).toContain("Dry run: nothing is sent")
      const page = await (await fetch(`http://127.0.0.1:${run.port}/console/dry-run`)).text()
      expect(page).toContain("Dry run: nothing is sent")
      for (const ref of refs) expect(page).toContain(ref)
      expect(page).toMatch(/\d \u00d7 /)

      const pod = await getJson(`${run.stack.pod.url}/__sim/stats`)
      expect(podWrites(pod)).toEqual({})
      expect(pod.draftsByReferenceId).toEqual({})
      // The look-up by reference id is a read, and it ran.
      expect(Object.keys(pod.requests).some((route) => route.startsWith("GET "))).toBe(true)
      expect(c.writes(await getJson(`${run.sim.url}/__sim/stats`))).toEqual({})
    } finally {
      await stopDaemons(dry)
    }

    // Dry run off: exactly those orders are drafted, once each.
    const daemon = await startDaemon(run.config, run.port)
    try {
      await waitFor(() => statusOf(run.port), (s) => s.drafted === ORDERS, 90_000)
      // More pulls and turns: nothing is drafted twice.
      await waitForPulls(run.port, [run.key], 3)
      const status = await getJson(`http://127.0.0.1:${run.port}/status`)
      expect(status.dryRun).toBeUndefined()
      const pod = await getJson(`${run.stack.pod.url}/__sim/stats`)
      expect(pod.draftsByReferenceId).toEqual(Object.fromEntries(refs.map((ref) => [ref, 1])))
      expect(pod.duplicateReferenceIds).toEqual([])
      // Not dry: the POD webhooks are registered now (at start, beside the catalog refresh: waited for, within a deadline).
      const registered = await waitFor(
        () => getJson(`${run.stack.pod.url}/__sim/stats`),
        (stats) => (stats.requests["POST /api/v3/webhooks"] ?? 0) > 0,
        60_000
      ).catch((error: unknown) => {
        throw new Error(
          `no POD webhook was registered: ${JSON.stringify(pod.requests)}\n${daemon.output()}`,
          { cause: error }
        )
      })
      expect(registered.requests["POST /api/v3/webhooks"] ?? 0).toBeGreaterThan(0)
      const story = await getJson(`http://127.0.0.1:${run.port}/explain?ref=${encodeURIComponent(refs[0]!)}`)
      expect(story.state).toBe("drafted")
      expect(story.events.filter((e: { wouldSend?: unknown }) => e.wouldSend !== undefined)).toHaveLength(1)
    } finally {
      await stopDaemons(daemon)
    }
  }, 300_000)
})
