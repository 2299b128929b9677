/**
 * The Shopify simulator as a Dev Dashboard app's shop (store-apis.md §0): the client credentials
 * grant issues expiring tokens carrying the app's scopes, answers Shopify's 401 once they expire,
 * refuses a wrong secret, counts its grants, and signs webhooks with the client secret.
 */
import { createHmac } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { type RunningShopifySimulator, startShopifySimulator } from "../../src/simulator/shopify/index.js"
import { simAdmin } from "../support/simAdmin.js"
import { webhookInbox } from "../support/webhookInbox.js"

const CLIENT_ID = "0a1b2c3d4e5f"
const CLIENT_SECRET = "shpss_sim-client-secret"
const running: Array<RunningShopifySimulator> = []
const inbox = webhookInbox("/webhooks/shopify")
afterEach(async () => {
  for (const sim of running.splice(0)) await sim.close()
})

const start = async (now: () => number, lifetime = 60) => {
  const sim = await startShopifySimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenLifetimeSeconds: lifetime, now })
  running.push(sim)
  return sim
}

const grant = (sim: RunningShopifySimulator, secret = CLIENT_SECRET, encoding: "form" | "json" = "form") => {
  const params = { grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: secret }
  return fetch(`${sim.url}/admin/oauth/access_token`, {
    method: "POST",
    headers: { "content-type": encoding === "form" ? "application/x-www-form-urlencoded" : "application/json" },
    body: encoding === "form" ? new URLSearchParams(params).toString() : JSON.stringify(params)
  })
}

const scopesQuery = "query Scopes { currentAppInstallation { accessScopes { handle } } }"
const graphql = (sim: RunningShopifySimulator, token: string) =>
  fetch(sim.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": token },
    body: JSON.stringify({ query: scopesQuery })
  })

describe("Shopify simulator: a Dev Dashboard app's client credentials", () => {
  it("issues tokens (form or JSON) carrying the app's scopes, good until they expire, then answers Shopify's 401", async () => {
    let now = Date.UTC(2026, 10, 29, 9, 0, 0)
    const sim = await start(() => now, 60)
    const form = await grant(sim)
    expect(form.status).toBe(200)
    const issued = (await form.json()) as { access_token: string; scope: string; expires_in: number }
    expect(issued).toEqual({ access_token: expect.stringMatching(/^shpat_[0-9a-f]{32}$/), scope: expect.any(String), expires_in: 60 })
    expect(issued.scope.split(",")).toContain("write_orders")
    const json = (await (await grant(sim, CLIENT_SECRET, "json")).json()) as { access_token: string }
    expect(json.access_token).not.toBe(issued.access_token)

    // Scopes as the app has them at the grant: a token granted after they change carries the new ones.
    await simAdmin(sim.url, "POST", "shop", { scopes: ["read_orders"] })
    const narrow = (await (await grant(sim)).json()) as { access_token: string; scope: string }
    expect(narrow.scope).toBe("read_orders")
    const handles = async (token: string) =>
      ((await (await graphql(sim, token)).json()) as { data: { currentAppInstallation: { accessScopes: Array<{ handle: string }> } } })
        .data.currentAppInstallation.accessScopes.map((s) => s.handle)
    expect(await handles(narrow.access_token)).toEqual(["read_orders"])
    expect(await handles(issued.access_token)).toContain("write_orders")

    now += 59_999
    expect((await graphql(sim, issued.access_token)).status).toBe(200)
    now += 1
    const expired = await graphql(sim, issued.access_token)
    expect(expired.status).toBe(401)
    expect(await expired.text()).toBe('{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}')
    // The static token of a legacy app is no token of this app.
    expect((await graphql(sim, sim.accessToken)).status).toBe(401)
    const stats = await simAdmin(sim.url, "GET", "stats")
    expect([stats.tokenGrants, stats.tokenRefusals, stats.unauthorized]).toEqual([3, 0, 2])
  })

  it("refuses a wrong client secret or grant type with OAuth's invalid_client, and counts the refusals", async () => {
    const sim = await start(Date.now)
    const wrong = await grant(sim, "shpss_not-the-secret")
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as { error: string }).error).toBe("invalid_client")
    const badType = await fetch(`${sim.url}/admin/oauth/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: CLIENT_ID, client_secret: CLIENT_SECRET }).toString()
    })
    expect([badType.status, ((await badType.json()) as { error: string }).error]).toEqual([400, "unsupported_grant_type"])
    const stats = await simAdmin(sim.url, "GET", "stats")
    expect([stats.tokenGrants, stats.tokenRefusals]).toEqual([0, 2])
    // Every token ends at once on demand.
    const token = ((await (await grant(sim)).json()) as { access_token: string }).access_token
    expect(await simAdmin(sim.url, "POST", "tokens/expire")).toEqual({ expired: 1 })
    expect((await graphql(sim, token)).status).toBe(401)
  })

  it("signs the app's webhooks with its client secret", async () => {
    {
      const sim = await start(Date.now)
      expect(sim.webhookSecret).toBe(CLIENT_SECRET)
      await simAdmin(sim.url, "POST", "webhooks/subscribe", { topic: "orders/create", address: inbox.url })
      await simAdmin(sim.url, "POST", "orders", { financialStatus: "PAID", lineItems: [{ sku: "A", quantity: 1, price: "1.00" }] })
      await simAdmin(sim.url, "POST", "webhooks/deliver", {})
      const [delivery] = inbox.received
      expect(delivery).toBeDefined()
      const expected = createHmac("sha256", CLIENT_SECRET).update(delivery!.raw).digest("base64")
      expect(delivery!.headers["x-shopify-hmac-sha256"]).toBe(expected)
    }
  })
})
