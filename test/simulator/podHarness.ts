// Shared by test/simulator/pod*.test.ts: one in-process POD simulator per file,
// reset before each test, and small fetch wrappers over real HTTP.
import { afterAll, beforeAll, beforeEach } from "vitest"
import type { PodSimulatorOptions, RunningPodSimulator } from "../../src/simulator/pod/index.js"
import { sampleDraftData, startPodSimulator } from "../../src/simulator/pod/index.js"

export const AUTH = { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" } as const

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // Tests read decoded JSON loosely; each assertion names the field it expects.
  readonly body: any
}

export interface PodHarness {
  readonly url: () => string
  readonly api: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>
  readonly admin: (method: string, path: string, body?: unknown) => Promise<Reply>
  readonly inStockVariantIds: (count: number) => Promise<ReadonlyArray<string>>
  readonly createDraft: (options: { referenceId?: string; autoApprove?: boolean; storeId?: string; quantity?: number }) => Promise<any>
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const request = async (url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: parse(text) }
}

export const usePodSimulator = (options: PodSimulatorOptions = {}): PodHarness => {
  let sim: RunningPodSimulator | undefined
  const url = (): string => {
    if (sim === undefined) throw new Error("simulator not started")
    return sim.url
  }
  beforeAll(async () => {
    // These tests read raw fields by name: the enum numbers some records carry are the client's concern (client tests).
    sim = await startPodSimulator({ enumNumbers: false, ...options })
  })
  afterAll(async () => {
    await sim?.close()
  })
  beforeEach(async () => {
    await request(`${url()}/__sim/reset`, "POST")
  })
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH): Promise<Reply> =>
    request(url() + path, method, body, headers)
  const admin = (method: string, path: string, body?: unknown): Promise<Reply> => request(url() + path, method, body)
  const inStockVariantIds = async (count: number): Promise<ReadonlyArray<string>> => {
    const reply = await api(
      "GET",
      `/api/v3/catalog/variants?filter.stock_labels=VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK&filter.sizes=M&paging.limit=${count}`
    )
    return reply.body.data.map((v: { variant_id: string }) => v.variant_id)
  }
  const createDraft = async (o: { referenceId?: string; autoApprove?: boolean; storeId?: string; quantity?: number }): Promise<any> => {
    const [variantId] = await inStockVariantIds(1)
    const reply = await api("POST", "/api/v3/orders/draft", { data: sampleDraftData({ variantId: variantId as string, ...o }) })
    if (reply.status !== 200) throw new Error(`draft not created: ${reply.status} ${reply.text}`)
    return reply.body.data
  }
  return { url, api, admin, inStockVariantIds, createDraft }
}

export const waitFor = async <A>(probe: () => Promise<A | undefined>, timeoutMs = 5_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
