import { expect } from "vitest"

/**
 * Calls a simulator's admin API (`/__sim/<path>`) and answers its JSON, asserting a 200 so a test
 * fails where its setup went wrong rather than later.
 */
export const simAdmin = async (baseUrl: string, method: string, path: string, body?: unknown): Promise<any> => {
  const response = await fetch(`${baseUrl}/__sim/${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  expect(response.status, `${method} ${path}`).toBe(200)
  return response.json()
}
