import * as fs from "node:fs"
import * as http from "node:http"
import { expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger, LogLevel, Redacted, TestClock } from "effect"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import { describe } from "vitest"
import { parseConfig } from "../../src/config/loadConfig.js"
import {
  consoleAccessOf,
  csrfMatches,
  csrfTokenOf,
  hashPassword,
  passwordMatches,
  proxyUserOf,
  sessionCookieValue,
  sessionOfCookie
} from "../../src/console/ConsoleAccess.js"
import { ConsoleAuth, LOGIN_FAILURES_ALLOWED } from "../../src/console/ConsoleAuth.js"
import { pgliteDatabase } from "../support/database.js"
import { daemonInProcess, scopedStack } from "../support/daemonInProcess.js"
import { waitForHttp } from "../support/cli.js"
import { freePort, writeDaemonConfig } from "../support/pipeline.js"

const configWith = (consoleSection: string, env: Record<string, string> = {}) =>
  parseConfig(
    `
server: { host: 0.0.0.0, port: 8080 }
pod: { baseUrl: https://pod.example.com/x, clientKey: k, clientSecret: s }
stores: []
${consoleSection}`,
    "test.yaml",
    env
  )

describe("who may reach the console", () => {
  it("serves it on a loopback host without auth, and on any other host only with a password hash or token", () => {
    expect(consoleAccessOf("127.0.0.1", { enabled: true })._tag).toBe("Local")
    expect(consoleAccessOf("::1", { enabled: true })._tag).toBe("Local")
    const off = consoleAccessOf("0.0.0.0", { enabled: true })
    expect(off).toMatchObject({ _tag: "Off" })
    expect(off._tag === "Off" && off.why).toContain("not a loopback address")
    expect(consoleAccessOf("127.0.0.1", { enabled: false })._tag).toBe("Off")
    // Variables left unset: an auth section with neither way in counts as no auth.
    expect(consoleAccessOf("0.0.0.0", { enabled: true, auth: { user: "anna", sessionHours: 12 } })._tag).toBe("Off")
    const token = { user: "anna", sessionHours: 12, token: Redacted.make("t0ken-long-enough") }
    expect(consoleAccessOf("0.0.0.0", { enabled: true, auth: token })._tag).toBe("Login")
  })

  it("reads console: from the configuration, the token as Redacted, and refuses a password hash of the wrong shape without printing it", () => {
    const ok = configWith("console:\n  auth:\n    token: ${TOKEN}", { TOKEN: "a-very-long-token-value" })
    expect(Either.isRight(ok)).toBe(true)
    if (Either.isRight(ok)) {
      expect(Redacted.isRedacted(ok.right.console.auth?.token)).toBe(true)
      expect(JSON.stringify(ok.right.console)).not.toContain("a-very-long-token-value")
    }
    const bad = configWith("console:\n  auth:\n    passwordHash: plain-password-oops")
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) {
      expect(bad.left.issues.map((i) => i.path)).toContain("console.auth.passwordHash")
      expect(bad.left.message).not.toContain("plain-password-oops")
    }
  })
})

describe("the console's cryptography", () => {
  it.effect("a scrypt hash matches its password only", () =>
    Effect.gen(function*() {
      const hash = yield* hashPassword("correct horse", 1024)
      expect(hash).toMatch(/^scrypt:1024:8:1:/)
      expect(yield* passwordMatches("correct horse", hash)).toBe(true)
      expect(yield* passwordMatches("correct hors", hash)).toBe(false)
      expect(yield* passwordMatches("correct horse", "scrypt:x")).toBe(false)
    }))

  it("a session cookie holds only while unaltered and unexpired; its CSRF token belongs to it alone", () => {
    const key = Buffer.alloc(32, 7)
    const session = { user: "anna", id: "s-1", expiresAtMs: 2_000 }
    const value = sessionCookieValue(key, session)
    expect(sessionOfCookie(key, value, 1_000)).toEqual(session)
    expect(sessionOfCookie(key, value, 2_000)).toBeUndefined()
    const [body, signature] = value.split(".")
    const forgedBody = Buffer.from(JSON.stringify(["root", "s-1", 9_999_999])).toString("base64url")
    expect(sessionOfCookie(key, `${forgedBody}.${signature}`, 1_000)).toBeUndefined()
    expect(sessionOfCookie(Buffer.alloc(32, 8), value, 1_000)).toBeUndefined()
    expect(body).toBeDefined()
    const token = csrfTokenOf(key, session)
    expect(csrfMatches(key, session, token)).toBe(true)
    expect(csrfMatches(key, { ...session, id: "s-2" }, token)).toBe(false)
    expect(csrfMatches(key, session, undefined)).toBe(false)
  })
})

const authLayer = (hash: string) =>
  ConsoleAuth.Default({
    access: {
      _tag: "Login",
      auth: { user: "anna", passwordHash: Redacted.make(hash), token: Redacted.make("the-long-token"), sessionHours: 12 }
    },
    sessionSecret: undefined
  })

describe("logging in", () => {
  it.effect("limits failed logins per address for 15 minutes; a token or the password opens a session; logout ends it", () =>
    Effect.gen(function*() {
      const hash = yield* hashPassword("correct horse", 1024)
      yield* Effect.gen(function*() {
        const auth = yield* ConsoleAuth
        for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) {
          expect((yield* auth.login("10.0.0.9", "anna", `guess-${i}`))._tag).toBe("Refused")
        }
        // Even the right password waits now, from that address; another address is not held back.
        expect(yield* auth.login("10.0.0.9", "anna", "correct horse")).toMatchObject({ _tag: "Limited", retryAfterSeconds: 900 })
        expect((yield* auth.login("10.0.0.10", "anna", "the-long-token"))._tag).toBe("LoggedIn")
        yield* TestClock.adjust("15 minutes")
        const outcome = yield* auth.login("10.0.0.9", "anna", "correct horse")
        expect(outcome._tag).toBe("LoggedIn")
        if (outcome._tag !== "LoggedIn") return
        const cookie = auth.cookieValue(outcome.session)
        expect(yield* auth.sessionOf(cookie)).toEqual(outcome.session)
        yield* auth.logout(outcome.session)
        expect(yield* auth.sessionOf(cookie)).toBeUndefined()
        // Sessions end on their own after sessionHours.
        const again = yield* auth.login("10.0.0.9", "anna", "the-long-token")
        if (again._tag !== "LoggedIn") throw new Error("expected a login")
        yield* TestClock.adjust("12 hours")
        expect(yield* auth.sessionOf(auth.cookieValue(again.session))).toBeUndefined()
      }).pipe(Effect.provide(authLayer(hash)))
    }))
})

describe("on a loopback host without auth", () => {
  it.scoped(
    "gives callers on this machine a session, and refuses a page asked for under another host name (DNS rebinding)",
    () =>
      Effect.gen(function*() {
        const stack = yield* scopedStack()
        const { port } = yield* daemonInProcess(stack, pgliteDatabase().layer)
        yield* Effect.promise(async () => {
          const local = await fetch(`http://127.0.0.1:${port}/console`)
          expect(local.status).toBe(200)
          expect(local.headers.get("set-cookie")).toMatch(/podsync_console=.*HttpOnly.*SameSite=Strict/i)
          expect(local.headers.get("content-security-policy")).toContain("script-src 'self'")
          // fetch keeps its own Host header: node:http sends the one a rebinding page's browser would.
          const rebound = await new Promise<number | undefined>((resolve, reject) =>
            http.get({ host: "127.0.0.1", port, path: "/console", headers: { host: "evil.example" } }, (response) => {
              response.resume()
              resolve(response.statusCode)
            }).on("error", reject)
          )
          expect(rebound).toBe(403)
          // A reverse proxy on this machine forwarding the world: refused without console.auth.
          const proxied = await fetch(`http://127.0.0.1:${port}/console`, { headers: { "x-forwarded-for": "203.0.113.7" } })
          expect(proxied.status).toBe(403)
          // A POST needs the session's CSRF token even here.
          const post = await fetch(`http://127.0.0.1:${port}/console/queue/act`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", cookie: local.headers.get("set-cookie")!.split(";")[0]! },
            body: "bulk=retry"
          })
          expect(post.status).toBe(403)
        })
      }),
    60_000
  )
})

describe("behind a reverse proxy that authenticates people (console.proxy)", () => {
  it("counts as auth on a public host, and reads the header name and the proxy's addresses", () => {
    const access = consoleAccessOf("0.0.0.0", { enabled: true, proxy: { userHeader: "X-Auth-Request-User", from: ["::ffff:10.0.0.2"] } })
    expect(access).toMatchObject({ _tag: "Login", proxy: { userHeader: "x-auth-request-user", from: ["10.0.0.2"] } })
    // The example's proxy: no address, nobody trusted, and no auth for a public host.
    expect(consoleAccessOf("0.0.0.0", { enabled: true, proxy: { userHeader: "X-Forwarded-User", from: [] } })._tag).toBe("Off")
    const parsed = configWith("console:\n  proxy: { userHeader: 'not a header', from: [10.0.0.0/8, 10.0.0.0/33, caddy] }")
    expect(Either.isLeft(parsed) && parsed.left.issues.map((i) => i.path)).toEqual([
      "console.proxy.userHeader",
      "console.proxy.from[1]",
      "console.proxy.from[2]"
    ])
  })

  it.live(
    "takes the person from the proxy's header; without it, the login page; another person's header or a forged token is refused",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const stack = yield* scopedStack()
        const db = yield* Layer.build(pgliteDatabase().layer)
        const port = yield* Effect.promise(() => freePort())
        const file = writeDaemonConfig(stack, port, { reconcile: "0 0 * * * *" })
        // The test's own address stands in for the proxy's.
        fs.appendFileSync(file, ["", "console:", "  proxy:", "    userHeader: X-Forwarded-User", "    from: [127.0.0.1]", ""].join("\n"))
        const config = yield* loadConfig(file, {})
        yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
          Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, Logger.none), Logger.minimumLogLevel(LogLevel.Warning)))
        )
        yield* Effect.promise(async () => {
          const base = `http://127.0.0.1:${port}`
          await waitForHttp(`${base}/healthz`)
          // From the proxy, naming the person: in, with a session of that person.
          const page = await fetch(`${base}/console`, { headers: { "x-forwarded-user": "maria@acme.example" } })
          expect(page.status).toBe(200)
          const body = await page.text()
          expect(body).toContain("maria@acme.example")
          const cookie = page.headers.get("set-cookie")!.split(";")[0]!
          // From the proxy without the header (a path it does not guard): the login page, no session.
          const bare = await fetch(`${base}/console`, { redirect: "manual" })
          expect(bare.status).toBe(303)
          expect(bare.headers.get("location")).toBe("/console/login")
          // Another person's header on maria's cookie: not maria's session for a POST.
          const csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? ""
          const act = (user: string, token: string) =>
            fetch(`${base}/console/queue/act`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-forwarded-user": user },
              body: `_csrf=${encodeURIComponent(token)}&bulk=retry`
            })
          expect((await act("eve", csrf)).status).toBe(403)
          expect((await act("maria@acme.example", "forged")).status).toBe(403)
          expect((await act("maria@acme.example", csrf)).status).toBeLessThan(400)
        })
      })),
    60_000
  )
})

describe("a proxy header from an address that is not the proxy's", () => {
  it("is ignored", () => {
    const proxy = { userHeader: "x-forwarded-user", from: ["10.0.0.2"] }
    expect(proxyUserOf(proxy, "::ffff:10.0.0.2", { "x-forwarded-user": "maria" })).toBe("maria")
    expect(proxyUserOf(proxy, "10.0.0.3", { "x-forwarded-user": "maria" })).toBeUndefined()
    expect(proxyUserOf(proxy, "10.0.0.2", { "x-forwarded-user": "  " })).toBeUndefined()
    expect(proxyUserOf(undefined, "10.0.0.2", { "x-forwarded-user": "maria" })).toBeUndefined()
    // A network: the compose network Caddy runs on.
    const network = { userHeader: "x-forwarded-user", from: ["172.18.0.0/16", "::1"] }
    expect(proxyUserOf(network, "::ffff:172.18.0.5", { "x-forwarded-user": "maria" })).toBe("maria")
    expect(proxyUserOf(network, "::1", { "x-forwarded-user": "maria" })).toBe("maria")
    expect(proxyUserOf(network, "172.19.0.5", { "x-forwarded-user": "maria" })).toBeUndefined()
  })
})
