/** Raw-HTTP helpers for the Etsy simulator tests (test/simulator/etsy*.test.ts): no connector code. */
import { expect } from "vitest"
import type { RunningEtsySimulator } from "../../../src/simulator/etsy/index.js"
import { simAdmin } from "../../support/simAdmin.js"

export const adminCall = (sim: RunningEtsySimulator, method: string, path: string, body?: unknown): Promise<any> =>
  simAdmin(sim.url, method, path, body)

/** The JSON body of an answer, untyped (these tests look at the wire shape). */
export const json = (response: Response): Promise<any> => response.json() as Promise<any>

export const apiKey = (sim: RunningEtsySimulator) => `${sim.keystring}:${sim.sharedSecret}`

export const grant = async (sim: RunningEtsySimulator, refreshToken = sim.refreshToken, encoding: "form" | "json" = "form") => {
  const fields = { grant_type: "refresh_token", client_id: sim.keystring, refresh_token: refreshToken }
  return fetch(`${sim.url}/v3/public/oauth/token`, {
    method: "POST",
    headers: { "content-type": encoding === "form" ? "application/x-www-form-urlencoded" : "application/json" },
    body: encoding === "form" ? new URLSearchParams(fields).toString() : JSON.stringify(fields)
  })
}

export const accessToken = async (sim: RunningEtsySimulator): Promise<string> => {
  const response = await grant(sim)
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

export const api = (sim: RunningEtsySimulator, token: string, path: string, init: RequestInit = {}) =>
  fetch(`${sim.url}/v3/application${path}`, {
    ...init,
    headers: { "x-api-key": apiKey(sim), authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) }
  })
