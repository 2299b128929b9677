// The POD simulator's admin endpoints, as the budget's tests and benchmark use them.

export interface SimStats {
  readonly total: number
  readonly accepted: number
  readonly rejected429: number
  readonly maxInWindow: number
  readonly windowSeconds: number
  readonly blockedUntil: string | null
}

export const simAdmin = async <A = unknown>(url: string, method: string, path: string, body?: unknown): Promise<A> => {
  const response = await fetch(`${url}/__sim${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`simulator ${method} ${path} → ${response.status}: ${text}`)
  return (text === "" ? undefined : JSON.parse(text)) as A
}

export const simStats = (url: string) => simAdmin<SimStats>(url, "GET", "/stats")
