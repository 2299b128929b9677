/**
 * Stores' expiring and rotating credentials, end to end with the real daemon process:
 *
 * - A Shopify store on a Dev Dashboard app (client id and secret) whose tokens live 5 seconds goes
 *   pull → draft → fulfil across many renewals and two kill -9s, asking Shopify for a token about once
 *   per 4 seconds (80 % of the lifetime), and never prints a token or the secret.
 * - Two replicas on PostgreSQL share the token through the database: they ask for one token per
 *   lifetime between them, not one each.
 * - An Etsy store keeps working across a restart after its refresh token rotated: Etsy refuses the
 *   configured one by then, so the restarted daemon must present the newest, kept in the database.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { type RunningEtsySimulator, startEtsySimulator } from "../../src/simulator/etsy/index.js"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { podsync, type spawnPodsync } from "../support/cli.js"
import { exited, freePort, getJson, post, startDaemon, statusOf, waitFor } from "../support/pipeline.js"
import { etsyMapping, etsySetup, shopifySetup } from "../support/storePlatforms.js"
import { demoLine, type StoreStack, startStoreStack, writeStoreDaemonConfig } from "../support/stores.js"
import { pullEverySecond } from "../support/turns.js"

const CLIENT_ID = "9f3c1e2d7b6a5f4e3d2c1b0a99887766"
const CLIENT_SECRET = "shpss_mk-client-secret-4f1d9a"
const LIFETIME_S = 5
// Debug lines too: a token printed at any level is a leak.
const LOGS = { PODSYNC_LOG_LEVEL: "debug" }

type Daemon = ReturnType<typeof spawnPodsync>

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const startClientCredentialsShop = () =>
  startShopifySimulator({
    bucket: { maximumAvailable: 20_000, restoreRate: 1_000 },
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    tokenLifetimeSeconds: LIFETIME_S
  })

/** A Dev Dashboard app's section: no access token, no webhook secret (it defaults to the client secret). */
const clientCredentialsSection = (shop: RunningShopifySimulator) => ({
  shop: "acme.myshopify.com",
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  baseUrl: shop.url
})

const shopStats = (shop: RunningShopifySimulator) => getJson(`${shop.url}/__sim/stats`)

/** Waits until Shopify has granted more than `grants` tokens in all (a daemon asked for a new one since). */
const grantedBeyond = (shop: RunningShopifySimulator, grants: number, timeoutMs = 60_000) =>
  waitFor(() => shopStats(shop), (s) => s.tokenGrants > grants, timeoutMs)

/** Drives the POD simulator (checkout, ship) until `orders` are fulfilled on the daemon at `port`. */
const driveUntilFulfilled = (stack: StoreStack, port: number, orders: number, timeoutMs: number) =>
  waitFor(
    async () => {
      await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true }).catch(() => undefined)
      await post(`${stack.pod.url}/__sim/ship-all`).catch(() => undefined)
      return statusOf(port)
    },
    (s) => (s.fulfilled ?? 0) >= orders,
    timeoutMs
  )

/** Nothing secret in what the daemons printed: no token the store issued (`shpat_…`, `<user id>.<…>`), no secret. */
const expectNoSecrets = (output: string, secrets: ReadonlyArray<string>, tokenPattern: RegExp) => {
  for (const secret of secrets) expect(output.includes(secret), `a secret in the output`).toBe(false)
  expect(output.match(tokenPattern) ?? []).toEqual([])
}

describe("a Shopify store on client credentials with 5-second tokens", () => {
  it("pulls, drafts and fulfils across many renewals and two kill -9s, one grant per 4 s, no token in the logs", async () => {
    const stack = await startStoreStack("tokens-shopify")
    const shop = await startClientCredentialsShop()
    const outputs: Array<string> = []
    let daemon: Daemon | undefined
    try {
      const port = await freePort()
      const config = pullEverySecond(writeStoreDaemonConfig(stack, port, {
        key: "acme-shopify",
        platform: "shopify",
        podStoreId: "store-demo",
        section: clientCredentialsSection(shop)
      }))
      const ORDERS = 12
      const ids: Array<string> = []
      for (let i = 0; i < ORDERS; i++) ids.push(await shopifySetup.createOrder(shop, demoLine(i)))

      const startedAt = Date.now()
      daemon = await startDaemon(config, port, LOGS)
      // Kill it twice mid-flight: once among pulls and drafts, once among pushes, each past a renewal
      // (the first daemon's first token and its renewal; a token the second daemon asked for itself).
      await waitFor(() => statusOf(port), (s) => (s.drafted ?? 0) + (s.shipped ?? 0) + (s.fulfilled ?? 0) > 0, 60_000)
      await grantedBeyond(shop, 1)
      daemon.kill("SIGKILL")
      await exited(daemon)
      outputs.push(daemon.output())
      const grantsBeforeSecond = (await shopStats(shop)).tokenGrants as number
      daemon = await startDaemon(config, port, LOGS)
      await post(`${stack.pod.url}/__sim/checkout-all`, { paid: true })
      await post(`${stack.pod.url}/__sim/ship-all`)
      await grantedBeyond(shop, grantsBeforeSecond)
      daemon.kill("SIGKILL")
      await exited(daemon)
      outputs.push(daemon.output())
      daemon = await startDaemon(config, port, LOGS)
      const final = await driveUntilFulfilled(stack, port, ORDERS, 120_000)
      // Some more lifetimes with the store idle but pulled every second: the token is renewed twice more.
      await grantedBeyond(shop, ((await shopStats(shop)).tokenGrants as number) + 1)
      const elapsedS = (Date.now() - startedAt) / 1000
      expect(final).toEqual({ fulfilled: ORDERS })

      const stats = await shopStats(shop)
      expect(Object.keys(stats.fulfillmentsByOrder).sort()).toEqual([...ids].sort())
      expect(Object.values(stats.fulfillmentsByOrder).every((n) => n === 1)).toBe(true)
      // Renewed all along: a token is renewed at the first request past 80 % of its 5 s (pulls come every second,
      // none while a daemon starts), so one grant per 4–6 s of work; none refused, and hardly a request
      // refused (one in flight as its token expires, once per restart at most).
      console.log(`Shopify, 1 daemon: ${stats.tokenGrants} token grants in ${elapsedS.toFixed(1)} s, ${stats.unauthorized} answered 401`)
      // Renewed, not merely fetched once per process: the idle end alone renewed twice (waited for above,
      // within a deadline). A token not renewed would be refused: at most 4 answers 401 (below). How many
      // grants a minute of wall time holds depends on the machine's load (no request while a daemon
      // starts), so the lower bound is not a rate.
      expect(stats.tokenGrants).toBeGreaterThanOrEqual(3)
      expect(stats.tokenGrants).toBeLessThanOrEqual(Math.ceil(elapsedS / (0.8 * LIFETIME_S)) + 4)
      expect(stats.tokenRefusals).toBe(0)
      expect(stats.unauthorized).toBeLessThanOrEqual(4)

      daemon.kill("SIGTERM")
      await exited(daemon)
      outputs.push(daemon.output())
      daemon = undefined
      expectNoSecrets(outputs.join("\n"), [CLIENT_SECRET], /shpat_[0-9a-f]+/g)
    } finally {
      if (daemon !== undefined) {
        daemon.kill("SIGKILL")
        await exited(daemon)
      }
      await shop.close()
      await stack.close()
    }
  }, 300_000)
})

const url = process.env.TEST_DATABASE_URL

describe.runIf(url)("two replicas on PostgreSQL with 5-second Shopify tokens", () => {
  it("ask for one token per lifetime between them, not one each", async () => {
    const schema = `tokens_${Math.random().toString(16).slice(2, 14)}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`create schema "${schema}"`)
    const databaseUrl = `${url}?options=-c%20search_path%3D${schema}`
    const stack = await startStoreStack("tokens-replicas")
    const shop = await startClientCredentialsShop()
    const daemons: Array<Daemon> = []
    try {
      const ports = [await freePort(), await freePort()]
      const configs = ports.map((port, i) => {
        const file = writeStoreDaemonConfig(
          stack,
          port,
          {
            key: "acme-shopify",
            platform: "shopify",
            podStoreId: "store-demo",
            section: clientCredentialsSection(shop)
          },
          {},
          `replica-${i}`
        )
        // Both replicas on the one database.
        fs.writeFileSync(file, `database:\n  url: "${databaseUrl}"\n${fs.readFileSync(file, "utf8")}`)
        return file
      })
      for (let i = 0; i < 6; i++) await shopifySetup.createOrder(shop, demoLine(i))
      const WINDOW_MS = 24_000

      /** Grants Shopify issued while `running` were up for WINDOW_MS, and the Shopify requests each replica made. */
      const measure = async (running: ReadonlyArray<number>) => {
        const callsBefore = await Promise.all(running.map((i) => shopifyCalls(ports[i]!)))
        const before = (await shopStats(shop)).tokenGrants as number
        await sleep(WINDOW_MS)
        const grants = ((await shopStats(shop)).tokenGrants as number) - before
        const calls = await Promise.all(running.map(async (i, n) => (await shopifyCalls(ports[i]!)) - callsBefore[n]!))
        return { grants, calls }
      }

      // Each replica measured once it calls Shopify (it holds a token).
      // A replica that never calls (one did not, once, under two CPU burners) fails with what it said and whether it still runs.
      const calling = (port: number, daemon: Daemon) =>
        waitFor(() => shopifyCalls(port), (n) => n > 0, 60_000).catch((error: unknown) => {
          const state = daemon.exitCode === null && daemon.signalCode === null
            ? "still running"
            : `ended (${daemon.signalCode ?? daemon.exitCode})`
          throw new Error(
            `${(error as Error).message}; the replica on port ${port} is ${state}; its log:\n${daemon.output().slice(-8000)}`,
            {
              cause: error
            }
          )
        })
      daemons.push(await startDaemon(configs[0]!, ports[0]!, LOGS))
      await calling(ports[0]!, daemons[0]!)
      const one = await measure([0])
      daemons.push(await startDaemon(configs[1]!, ports[1]!, LOGS))
      await calling(ports[1]!, daemons[1]!)
      const two = await measure([0, 1])
      const perWindow = WINDOW_MS / (0.8 * LIFETIME_S * 1000)
      console.log(
        `Shopify token grants in ${WINDOW_MS / 1000} s of ${LIFETIME_S}-second tokens (renewed at 80 %, ${perWindow} expected): ` +
          `1 replica ${one.grants} (requests ${one.calls.join(", ")}), 2 replicas ${two.grants} (requests ${two.calls.join(", ")})`
      )
      // Both replicas were calling Shopify all along, each with a token…
      expect(two.calls.every((n) => n > 0)).toBe(true)
      // …and between them asked for about as many tokens as one replica alone (one per 4–6 s: at the first
      // request past 80 % of the lifetime), not one each (which would be twice as many).
      expect(one.grants).toBeGreaterThanOrEqual(3)
      expect(one.grants).toBeLessThanOrEqual(perWindow + 1)
      expect(two.grants).toBeLessThanOrEqual(Math.min(perWindow + 1, one.grants + 2))
      expect((await shopStats(shop)).tokenRefusals).toBe(0)
      const rows = await admin.query(`select store_key, version from "${schema}".store_tokens`)
      expect(rows.rows.map((r) => r.store_key)).toEqual(["acme-shopify"])
    } finally {
      for (const daemon of daemons) daemon.kill("SIGTERM")
      await Promise.all(daemons.map(exited))
      expectNoSecrets(daemons.map((d) => d.output()).join("\n"), [CLIENT_SECRET], /shpat_[0-9a-f]+/g)
      await shop.close()
      await stack.close()
      await admin.query(`drop schema if exists "${schema}" cascade`)
      await admin.end()
    }
  }, 180_000)
})

/** The daemon's count of its Shopify API calls (`podsync_store_api_calls_total`), from /metrics. */
const shopifyCalls = async (port: number): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return text.split("\n")
    .filter((line) => line.startsWith("podsync_store_api_calls_total{") && line.includes('store="acme-shopify"'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)
}

describe("an Etsy store whose refresh token rotated", () => {
  it("is not refreshed by a check that has no database to keep the new refresh token in", async () => {
    const stack = await startStoreStack("tokens-etsy-check", etsyMapping)
    const etsy: RunningEtsySimulator = await startEtsySimulator()
    try {
      const config = writeStoreDaemonConfig(stack, await freePort(), {
        key: "acme-etsy",
        platform: "etsy",
        podStoreId: "store-demo",
        section: etsySetup.section(etsy)
      })
      // No database yet: the stack's data folder (a migrated copy) is taken away, as on a first install.
      fs.rmSync(path.join(stack.dir, "data"), { recursive: true, force: true })
      const checked = await podsync(["check", "--config", config])
      expect(checked.stdout).toContain("Store acme-etsy (etsy): NOT VERIFIED")
      expect(checked.stdout).toContain("the refresh token is not tried here")
      expect(checked.code).toBe(3)
      // The configured refresh token is still good for the daemon's first start.
      const stats = await getJson(`${etsy.url}/__sim/stats`)
      expect([stats.tokenGrants, stats.tokenRefusals]).toEqual([0, 0])
    } finally {
      await etsy.close()
      await stack.close()
    }
  }, 120_000)

  it(
    "keeps working across a kill -9 and restart: the newest refresh token was kept, the used-up configured one is never sent",
    async () => {
      const stack = await startStoreStack("tokens-etsy", etsyMapping)
      const etsy: RunningEtsySimulator = await startEtsySimulator()
      let daemon: Daemon | undefined
      const outputs: Array<string> = []
      try {
        const port = await freePort()
        const config = pullEverySecond(writeStoreDaemonConfig(stack, port, {
          key: "acme-etsy",
          platform: "etsy",
          podStoreId: "store-demo",
          section: etsySetup.section(etsy)
        }))
        const FIRST = 4
        for (let i = 0; i < FIRST; i++) await etsySetup.createOrder(etsy, demoLine(i))
        daemon = await startDaemon(config, port, LOGS)
        await waitFor(() => statusOf(port), (s) => (s.drafted ?? 0) === FIRST, 60_000)
        const rotated = await getJson(`${etsy.url}/__sim/stats`)
        expect(rotated.tokenGrants).toBeGreaterThanOrEqual(1)

        // The configured refresh token was used up by the first refresh: Etsy refuses it now.
        const stale = await fetch(`${etsy.url}/v3/public/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ grant_type: "refresh_token", client_id: etsy.keystring, refresh_token: etsy.refreshToken }).toString()
        })
        expect([stale.status, ((await stale.json()) as { error: string }).error]).toEqual([400, "invalid_grant"])

        daemon.kill("SIGKILL")
        await exited(daemon)
        outputs.push(daemon.output())
        // The access token the daemon held expires meanwhile: the restarted one must refresh.
        await post(`${etsy.url}/__sim/tokens/expire`)
        for (let i = FIRST; i < 2 * FIRST; i++) await etsySetup.createOrder(etsy, demoLine(i))
        daemon = await startDaemon(config, port, LOGS)
        const final = await driveUntilFulfilled(stack, port, 2 * FIRST, 120_000)
        expect(final).toEqual({ fulfilled: 2 * FIRST })

        const after = await getJson(`${etsy.url}/__sim/stats`)
        // It refreshed after the restart, with the newest refresh token: only the test's own stale attempt was refused.
        expect(after.tokenGrants).toBeGreaterThan(rotated.tokenGrants)
        expect(after.tokenRefusals).toBe(rotated.tokenRefusals + 1)
        expect(Object.keys(after.shipmentsByReceipt)).toHaveLength(2 * FIRST)

        daemon.kill("SIGTERM")
        await exited(daemon)
        outputs.push(daemon.output())
        daemon = undefined
        const output = outputs.join("\n")
        expect(output).not.toContain("update etsy.refreshToken")
        expectNoSecrets(output, [etsy.refreshToken, etsy.sharedSecret], new RegExp(`${etsy.userId}\\.[A-Za-z0-9_-]{20,}`, "g"))
      } finally {
        if (daemon !== undefined) {
          daemon.kill("SIGKILL")
          await exited(daemon)
        }
        await etsy.close()
        await stack.close()
      }
    },
    240_000
  )
})
