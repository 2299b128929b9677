import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger, LogLevel } from "effect"
import { describe } from "vitest"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js"
import { PASSWORD_HASH_FORMAT } from "../../src/config/ConsoleConfig.js"
import { consoleAccessOf, hashPassword, passwordMatches, roleOfPerson } from "../../src/console/ConsoleAccess.js"
import { consoleRoutes } from "../../src/console/ConsoleRoutes.js"
import {
  defaultProxyRole,
  groupsOf,
  mayPost,
  POST_ROUTES,
  POSTS_BEFORE_LOGIN,
  proxyRoleOf,
  roleNeededFor
} from "../../src/console/ConsoleRoles.js"
import { statusReportNow } from "../../src/http/MetricsRoutes.js"
import { ConsoleActionsRepo } from "../../src/repos/ConsoleActionsRepo.js"
import { testDatabases } from "../support/database.js"
import { scopedStack } from "../support/daemonInProcess.js"
import { waitForHttp } from "../support/cli.js"
import { freePort, writeDaemonConfig } from "../support/pipeline.js"

const HASH = "scrypt:1024:8:1:c2FsdHNhbHRzYWx0c2FsdA==:aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g="

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

const consoleOf = (section: string) => {
  const parsed = configWith(section)
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return parsed.right.console
}

describe("what each role may do", () => {
  it("a viewer only logs out; an operator acts on orders, mapping rows and reports; only an admin writes whole mapping files", () => {
    expect(mayPost("viewer", "/console/logout")).toBe(true)
    for (const path of ["/console/queue/act", "/console/reports/run", "/console/mappings/add", "/console/mappings/edit"]) {
      expect(mayPost("viewer", path), path).toBe(false)
      expect(mayPost("operator", path), path).toBe(true)
      expect(mayPost("admin", path), path).toBe(true)
    }
    for (const path of ["/console/mappings/upload", "/console/mappings/upload/apply", "/console/mappings/merge"]) {
      expect(mayPost("operator", path), path).toBe(false)
      expect(mayPost("admin", path), path).toBe(true)
    }
    // A route nobody listed needs the highest role.
    expect(roleNeededFor("/console/something/new")).toBe("admin")
  })

  it("a proxy's person gets the highest role of their name and groups, else the default (admin until roles name anyone)", () => {
    const proxy = {
      roles: { "maria@acme.example": "operator", "group:owners": "admin", "group:support": "viewer" },
      defaultRole: "viewer"
    } as const
    expect(proxyRoleOf(proxy, "maria@acme.example", [])).toBe("operator")
    expect(proxyRoleOf(proxy, "maria@acme.example", ["owners"])).toBe("admin")
    expect(proxyRoleOf(proxy, "sam", ["support"])).toBe("viewer")
    expect(proxyRoleOf(proxy, "nobody", ["strangers"])).toBe("viewer")
    expect(defaultProxyRole(undefined, undefined)).toBe("admin")
    expect(defaultProxyRole({}, undefined)).toBe("admin")
    expect(defaultProxyRole({ maria: "operator" }, undefined)).toBe("viewer")
    expect(defaultProxyRole({ maria: "operator" }, "operator")).toBe("operator")
    expect(groupsOf(" owners, support ,,")).toEqual(["owners", "support"])
    expect(groupsOf(undefined)).toEqual([])
  })

  it("an existing configuration with one password keeps working: its user is an admin", () => {
    const access = consoleAccessOf("0.0.0.0", consoleOf(`console:\n  auth:\n    user: anna\n    passwordHash: "${HASH}"`))
    expect(access._tag).toBe("Login")
    expect(roleOfPerson(access, "anna", [])).toBe("admin")
    // On this machine without auth: whoever is here is the owner.
    expect(roleOfPerson(consoleAccessOf("127.0.0.1", consoleOf("console: {}")), "local", [])).toBe("admin")
    // A proxy configured before roles: everyone it names may do everything, as before.
    const proxied = consoleAccessOf("0.0.0.0", consoleOf("console:\n  proxy: { from: [10.0.0.2] }"))
    expect(roleOfPerson(proxied, "maria", [])).toBe("admin")
  })

  it("the team's logins each have their role; the proxy's people theirs; anyone else is a viewer", () => {
    const config = consoleOf([
      "console:",
      "  auth:",
      "    users:",
      `      - { name: vera, role: viewer, passwordHash: "${HASH}" }`,
      `      - { name: otto, role: operator, passwordHash: "${HASH}" }`,
      `      - { name: adam.smith@acme.example, role: admin, passwordHash: "${HASH}" }`
    ].join("\n"))
    const access = consoleAccessOf("0.0.0.0", config)
    expect(access._tag).toBe("Login")
    expect(roleOfPerson(access, "vera", [])).toBe("viewer")
    expect(roleOfPerson(access, "otto", [])).toBe("operator")
    expect(roleOfPerson(access, "adam.smith@acme.example", [])).toBe("admin")
    // `auth.user` has no password or token here: the name is nobody's, and a stranger may only look.
    expect(roleOfPerson(access, "seller", [])).toBe("viewer")
    const proxied = consoleAccessOf(
      "0.0.0.0",
      consoleOf([
        "console:",
        "  proxy:",
        "    from: [10.0.0.2]",
        "    groupsHeader: Remote-Groups",
        "    roles: { maria: operator, 'group:owners': admin }"
      ].join("\n"))
    )
    expect(proxied._tag === "Login" && proxied.proxy).toMatchObject({ groupsHeader: "remote-groups", defaultRole: "viewer" })
    expect(roleOfPerson(proxied, "maria", [])).toBe("operator")
    expect(roleOfPerson(proxied, "sam", ["owners"])).toBe("admin")
    expect(roleOfPerson(proxied, "sam", [])).toBe("viewer")
  })

  it("a bad team entry is refused naming its place in the file, never printing a password hash", () => {
    const bad = configWith([
      "console:",
      "  auth:",
      "    user: anna",
      "    token: a-very-long-token-value",
      "    users:",
      `      - { name: vera, role: viewer, passwordHash: "${HASH}" }`,
      "      - { name: otto, role: boss, passwordHash: my-plain-password }",
      "  proxy:",
      "    from: [10.0.0.2]",
      "    roles: { maria: superuser }",
      "    defaultRole: root"
    ].join("\n"))
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) {
      const paths = bad.left.issues.map((i) => i.path)
      expect(paths).toEqual(expect.arrayContaining([
        "console.auth.users[1].role",
        "console.auth.users[1].passwordHash",
        "console.proxy.roles.maria",
        "console.proxy.defaultRole"
      ]))
      expect(bad.left.message).toContain("viewer")
      expect(bad.left.message).not.toContain("my-plain-password")
      expect(bad.left.message).not.toContain("a-very-long-token-value")
    }
    const twice = configWith([
      "console:",
      "  auth:",
      "    user: anna",
      "    token: a-very-long-token-value",
      "    users:",
      `      - { name: otto, role: viewer, passwordHash: "${HASH}" }`,
      `      - { name: otto, role: admin, passwordHash: "${HASH}" }`
    ].join("\n"))
    expect(Either.isLeft(twice) && twice.left.issues).toEqual([{
      path: "console.auth.users[1].name",
      message: 'duplicate user name "otto"'
    }])
    const clash = configWith([
      "console:",
      "  auth:",
      "    user: anna",
      "    token: a-very-long-token-value",
      "    users:",
      `      - { name: anna, role: viewer, passwordHash: "${HASH}" }`
    ].join("\n"))
    expect(Either.isLeft(clash) && clash.left.issues.map((i) => i.path)).toEqual(["console.auth.users[0].name"])
  })
})

describe("podsync console hash-password", () => {
  const run = (input: string) =>
    spawnSync(process.execPath, ["bin/podsync.js", "console", "hash-password"], { input, encoding: "utf8", timeout: 60_000 })

  it.effect("prints, from a piped password, a hash the console's login accepts; a short password is refused", () =>
    Effect.gen(function*() {
      const made = run("a team member's own password\n")
      expect(made.status).toBe(0)
      const hash = made.stdout.trim()
      expect(hash).toMatch(PASSWORD_HASH_FORMAT)
      expect(made.stdout + made.stderr).not.toContain("own password")
      expect(yield* passwordMatches("a team member's own password", hash)).toBe(true)
      expect(yield* passwordMatches("a team member's own passwort", hash)).toBe(false)
      const short = run("hunter2\n")
      expect(short.status).toBe(1)
      expect(short.stdout).toBe("")
      expect(short.stderr).toContain("the password has 7 characters: give at least 10")
      expect(short.stderr).not.toContain("hunter2")
    }), 120_000)
})

describe("every POST route of the console is guarded", () => {
  it("the router's POST routes are exactly those the role table lists (a new route fails here until it is given a role)", () => {
    const router = consoleRoutes(statusReportNow, { notCheckedOutAfterHours: 24, noDraftAfterMinutes: 30 })
    const posts = [...router.routes].filter((r) => r.method === "POST").map((r) => r.path).sort()
    expect(posts).toEqual([...Object.keys(POST_ROUTES), ...POSTS_BEFORE_LOGIN].sort())
  })

  for (const database of testDatabases()) {
    it.live(
      `a viewer is refused every POST but logging out, an operator what needs an admin, each refusal on the audit page (${database.name})`,
      () =>
        Effect.scoped(Effect.gen(function*() {
          const stack = yield* scopedStack()
          const db = yield* Layer.build(database.layer)
          const port = yield* Effect.promise(() => freePort())
          const file = writeDaemonConfig(stack, port, { reconcile: "0 0 * * * *" })
          const hash = yield* hashPassword("viewer and operator password", 1024)
          fs.appendFileSync(
            file,
            [
              "",
              "console:",
              "  auth:",
              "    users:",
              `      - { name: vera, role: viewer, passwordHash: "${hash}" }`,
              `      - { name: otto, role: operator, passwordHash: "${hash}" }`,
              ""
            ].join("\n")
          )
          const config = yield* loadConfig(file, {})
          yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
            Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, Logger.none), Logger.minimumLogLevel(LogLevel.Warning)))
          )
          const base = `http://127.0.0.1:${port}`
          const loggedIn = async (user: string) => {
            const login = await fetch(`${base}/console/login`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
              body: new URLSearchParams({ user, password: "viewer and operator password" })
            })
            expect(login.status).toBe(303)
            const cookie = login.headers.get("set-cookie")!.split(";")[0]!
            const page = await (await fetch(`${base}/console`, { headers: { cookie } })).text()
            const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""
            const post = (path: string) =>
              fetch(`${base}${path}`, {
                method: "POST",
                redirect: "manual",
                headers: { cookie, origin: base },
                // Multipart for the upload, as its form sends it; a form body for the others.
                body: path === "/console/mappings/upload"
                  ? (() => {
                    const form = new FormData()
                    form.set("_csrf", csrf)
                    form.set("store", "demo-shopify")
                    form.set("csv", "store_variant_id,store_sku,pod_variant_id,print_front,print_back,ignore\n")
                    return form
                  })()
                  : new URLSearchParams({ _csrf: csrf, store: "demo-shopify", bulk: "retry" })
              })
            return { post, page }
          }
          yield* Effect.promise(async () => {
            await waitForHttp(`${base}/healthz`)
            const vera = await loggedIn("vera")
            expect(vera.page).toContain("You are a viewer")
            const refusedToVera = Object.keys(POST_ROUTES).filter((path) => path !== "/console/logout")
            for (const path of refusedToVera) {
              const response = await vera.post(path)
              expect(response.status, path).toBe(403)
              const body = await response.text()
              expect(body, path).toContain(
                `You are vera, a viewer: this needs ${POST_ROUTES[path]!.role === "admin" ? "an admin" : "an operator"}`
              )
            }
            const otto = await loggedIn("otto")
            for (const path of Object.keys(POST_ROUTES).filter((p) => POST_ROUTES[p]!.role === "admin")) {
              const response = await otto.post(path)
              expect(response.status, path).toBe(403)
              expect(await response.text(), path).toContain("You are otto, an operator: this needs an admin")
            }
            // What an operator may do is let through (nothing chosen: the queue says so).
            expect((await otto.post("/console/queue/act")).status).toBe(303)
            expect((await vera.post("/console/logout")).status).toBe(303)
          })
          const audit = yield* Effect.flatMap(ConsoleActionsRepo, (repo) => repo.page({ limit: 50 })).pipe(
            Effect.provide(ConsoleActionsRepo.Default),
            Effect.provide(Layer.succeedContext(db))
          )
          const refusals = audit.actions.filter((a) => a.kind === "refused")
          expect(refusals.filter((a) => a.actor === "vera")).toHaveLength(Object.keys(POST_ROUTES).length - 1)
          expect(refusals.filter((a) => a.actor === "otto").map((a) => a.summary)).toContain(
            "tried to add the suggested mapping rows for demo-shopify: refused, needs admin"
          )
          expect(refusals.every((a) => a.outcome === "refused")).toBe(true)
        })),
      90_000
    )
  }
})
