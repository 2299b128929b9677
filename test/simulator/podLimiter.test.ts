import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SlidingWindowLimiter } from "../../src/simulator/pod/index.js"
import { usePodSimulator } from "./podHarness.js"

const manualClock = () => {
  let now = 1_000_000
  return { now: () => now, set: (t: number) => (now = t), advance: (ms: number) => (now += ms) }
}

describe("the simulator's rate limiter (injected clock)", () => {
  it("refuses the (N+1)-th request in a window and holds the block for exactly B seconds", () => {
    const clock = manualClock()
    const limiter = new SlidingWindowLimiter({ requests: 5, windowSeconds: 1, blockSeconds: 2 }, clock.now)
    const start = clock.now()
    for (let i = 0; i < 5; i++) {
      expect(limiter.arrive("k").allowed).toBe(true)
      clock.advance(100)
    }
    const sixth = limiter.arrive("k")
    expect(sixth).toMatchObject({ allowed: false, retryAfterSeconds: 2, blockedUntil: start + 500 + 2000 })
    // The window that triggered the block is long gone, but the block holds.
    clock.set(start + 500 + 1999)
    const late = limiter.arrive("k")
    expect(late.allowed).toBe(false)
    // Arrivals during the block do not extend it.
    expect(late).toMatchObject({ blockedUntil: start + 2500 })
    clock.set(start + 2500)
    expect(limiter.arrive("k").allowed).toBe(true)
  })

  it("counts refused arrivals, so hammering during a block refills the window", () => {
    const clock = manualClock()
    const limiter = new SlidingWindowLimiter({ requests: 3, windowSeconds: 1, blockSeconds: 1 }, clock.now)
    for (let i = 0; i < 4; i++) limiter.arrive("k")
    clock.advance(900)
    for (let i = 0; i < 3; i++) expect(limiter.arrive("k").allowed).toBe(false)
    clock.advance(100) // block over; the window (t-1s, t] holds 3 refused arrivals
    const next = limiter.arrive("k")
    expect(next).toMatchObject({ allowed: false, inWindow: 4, retryAfterSeconds: 1 })
  })

  it("uses a half-open sliding window: an arrival leaves it exactly W later", () => {
    const clock = manualClock()
    const limiter = new SlidingWindowLimiter({ requests: 2, windowSeconds: 10, blockSeconds: 60 }, clock.now)
    expect(limiter.arrive("k").allowed).toBe(true)
    clock.advance(9_999)
    expect(limiter.arrive("k").allowed).toBe(true)
    clock.advance(1)
    expect(limiter.arrive("k")).toMatchObject({ allowed: true, inWindow: 2 })
  })

  it("limits each client key on its own", () => {
    const clock = manualClock()
    const limiter = new SlidingWindowLimiter({ requests: 1, windowSeconds: 1, blockSeconds: 5 }, clock.now)
    expect(limiter.arrive("a").allowed).toBe(true)
    expect(limiter.arrive("a").allowed).toBe(false)
    expect(limiter.arrive("b").allowed).toBe(true)
  })

  it("never serves more than N in any window and always refuses the (N+1)-th arrival (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 120 }),
        (n, windowSeconds, blockSeconds, gaps) => {
          const clock = manualClock()
          const limiter = new SlidingWindowLimiter({ requests: n, windowSeconds, blockSeconds }, clock.now)
          const w = windowSeconds * 1000
          const arrivals: Array<number> = []
          const served: Array<number> = []
          let blockedUntil = -Infinity
          for (const gap of gaps) {
            const t = clock.advance(gap)
            arrivals.push(t)
            const inWindow = arrivals.filter((a) => a > t - w).length
            const decision = limiter.arrive("k")
            // Reference model, brute force: blocked, or over the limit (which starts a block), or served.
            const expected = t < blockedUntil ? false : inWindow <= n
            if (t >= blockedUntil && inWindow > n) blockedUntil = t + blockSeconds * 1000
            expect(decision.allowed).toBe(expected)
            if (inWindow > n) expect(decision.allowed).toBe(false)
            if (decision.allowed) served.push(t)
            expect(served.filter((s) => s > t - w).length).toBeLessThanOrEqual(n)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("the simulator's rate limit over HTTP (5 per 1 s, block 2 s)", () => {
  const pod = usePodSimulator({ rateLimit: { requests: 5, windowSeconds: 1, blockSeconds: 2 } })

  it("answers the sixth request 429 with Retry-After and the spec's body, and keeps blocking for 2 s", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 5; i++) statuses.push((await pod.api("GET", "/api/v3/catalog?paging.limit=1")).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    const refused = await pod.api("GET", "/api/v3/catalog?paging.limit=1")
    const blockedAt = Date.now()
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("2")
    expect(refused.body).toEqual({ error: { code: 429, message: "Rate limit exceeded. Please retry later." } })

    await new Promise((resolve) => setTimeout(resolve, 1_200))
    const stillBlocked = await pod.api("GET", "/api/v3/catalog?paging.limit=1")
    expect(stillBlocked.status).toBe(429)
    expect(Number(stillBlocked.headers.get("retry-after"))).toBe(1)

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, blockedAt + 2_100 - Date.now())))
    expect((await pod.api("GET", "/api/v3/catalog?paging.limit=1")).status).toBe(200)

    const stats = (await pod.admin("GET", "/__sim/stats")).body
    expect(stats).toMatchObject({ total: 8, accepted: 6, rejected429: 2, maxInWindow: 6, windowSeconds: 1 })
    expect(stats.requests).toEqual({ "GET /api/v3/catalog": 8 })
  })

  it("does not rate-limit or count the admin endpoints", async () => {
    for (let i = 0; i < 10; i++) expect((await pod.admin("GET", "/__sim/stats")).status).toBe(200)
    const stats = (await pod.admin("GET", "/__sim/stats")).body
    expect(stats).toMatchObject({ total: 0, maxInWindow: 0, blockedUntil: null })
  })

  it("reports the block in stats and can be reconfigured or switched off", async () => {
    for (let i = 0; i < 6; i++) await pod.api("GET", "/api/v3/catalog?paging.limit=1")
    const blocked = (await pod.admin("GET", "/__sim/stats")).body
    expect(Date.parse(blocked.blockedUntil)).toBeGreaterThan(Date.now())
    expect((await pod.admin("POST", "/__sim/rate-limit", { enabled: false })).status).toBe(200)
    for (let i = 0; i < 12; i++) expect((await pod.api("GET", "/api/v3/catalog?paging.limit=1")).status).toBe(200)
    await pod.admin("POST", "/__sim/rate-limit", { requests: 5, windowSeconds: 1, blockSeconds: 2 })
    expect((await pod.admin("GET", "/__sim/stats")).body.maxInWindow).toBeGreaterThanOrEqual(12)
  })
})
