import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { type Browser } from "playwright-core"
import { CHROMIUM, launchChromium } from "../../bench/report-screenshot.js"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { hashPassword } from "../../src/console/ConsoleAccess.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { pgliteDatabase } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"
import { freePort, startStack, writeDaemonConfig } from "../support/pipeline.js"

const SHOTS = "bench/results/console"
const PASSWORDS = { "vera.lindqvist": "viewer: looks, never touches", "otto@acme.example": "operator: fixes what is stuck" }

/** An order of the daemon's store in a state a person acts on, put there before the daemon starts. */
const arranged = (storeOrderId: string, name: string, path: ReadonlyArray<OrderState>) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const reference = `demo-shopify:${storeOrderId}`
    const { id } = yield* repo.upsertPulled(sampleOrder({ storeKey: "demo-shopify", storeOrderId, name }), reference)
    let from: OrderState = "pulled"
    for (const to of path) {
      yield* repo.transition(id, from, to, {
        reason: to === "failed" ? "the POD service refused the draft: design file unreachable" : `arranged: ${to}`,
        actor: "worker",
        lastError: to === "failed" ? { message: "design file unreachable (HTTP 404)" } : undefined,
        nextAttemptAt: null
      })
      from = to
    }
    return reference
  })

const logIn = async (browser: Browser, base: string, user: keyof typeof PASSWORDS) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${base}/console/login`)
  await page.fill("input[name=user]", user)
  await page.fill("input[name=password]", PASSWORDS[user])
  await page.click("button[type=submit]")
  expect(new URL(page.url()).pathname).toBe("/console")
  return page
}

// Without Debian's Chromium on the machine this test is left out, as the other browser tests are.
describe.runIf(fs.existsSync(CHROMIUM))("a team in the console", () => {
  it.live(
    "a viewer sees the queue with its buttons disabled and is refused the action; an operator takes it; the audit page lists both",
    () =>
      Effect.scoped(Effect.gen(function*() {
        fs.mkdirSync(SHOTS, { recursive: true })
        const stack = yield* Effect.acquireRelease(Effect.promise(() => startStack()), (s) => Effect.promise(() => s.close()))
        const db = yield* Layer.build(pgliteDatabase().layer)
        const repos = Layer.provide(OrdersRepo.Default, Layer.succeedContext(db))
        const failed = yield* arranged("9990101", "#A9990101", ["ready", "failed"]).pipe(Effect.provide(repos))
        const port = yield* Effect.promise(() => freePort())
        // Nothing pulled while the people act: the queue holds what was arranged.
        const file = writeDaemonConfig(stack, port, { pull: "0 0 0 1 1 *", reconcile: "0 0 0 1 1 *" })
        const users = yield* Effect.forEach(
          Object.entries(PASSWORDS),
          ([name, password], i) =>
            Effect.map(
              hashPassword(password, 1024),
              (hash) => `      - { name: ${name}, role: ${i === 0 ? "viewer" : "operator"}, passwordHash: "${hash}" }`
            )
        )
        fs.appendFileSync(file, ["", "console:", "  auth:", "    users:", ...users, ""].join("\n"))
        const config = yield* loadConfig(file, {})
        yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
          Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, Logger.none), Logger.minimumLogLevel(LogLevel.Warning)))
        )
        const base = `http://127.0.0.1:${port}`
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => launchChromium()),
          (b) => Effect.promise(() => b.close())
        )
        const retry = `tr[data-reference='${failed}'] button:has-text('Retry now')`

        // The viewer: every page, no action.
        yield* Effect.promise(async () => {
          const vera = await logIn(browser, base, "vera.lindqvist")
          expect(await vera.textContent("[data-testid=role]")).toBe("viewer")
          await vera.goto(`${base}/console/queue`)
          expect(await vera.textContent("[data-testid=role-note]")).toContain("You are a viewer")
          expect(await vera.isDisabled(retry)).toBe(true)
          expect(await vera.getAttribute(retry, "title")).toBe("needs operator: you are viewer")
          // A button enabled by hand (or a form sent by a script) is refused by the server all the same.
          await vera.$eval(retry, (button) => button.removeAttribute("disabled"))
          await vera.click(retry)
          expect(await vera.textContent("[data-testid=refused]")).toContain(
            "You are vera.lindqvist, a viewer: this needs an operator. Nothing was done."
          )
          await vera.close()
        })
        const orders = yield* Effect.provide(OrdersRepo, repos)
        expect((yield* orders.byReference(failed))?.state).toBe("failed")

        // The operator: the same button works; whole mapping files stay an admin's.
        yield* Effect.promise(async () => {
          const otto = await logIn(browser, base, "otto@acme.example")
          await otto.goto(`${base}/console/queue`)
          expect(await otto.locator("[data-testid=role-note]").count()).toBe(0)
          await otto.click(retry)
          expect(await otto.textContent("[data-testid=done]")).toContain("retry asked by otto@acme.example in the console")
          await otto.goto(`${base}/console/mappings`)
          expect(await otto.isDisabled("[data-testid=upload] button[type=submit]")).toBe(true)
          expect(await otto.isDisabled("[data-testid=add-row] button[type=submit]")).toBe(false)

          // The audit page: newest first, who with their role, what, on which order, when.
          await otto.goto(`${base}/console/audit`)
          const rows = otto.locator("[data-testid=audit] tbody tr")
          expect(await rows.count()).toBe(2)
          const [first, second] = [await rows.nth(0).textContent(), await rows.nth(1).textContent()]
          expect(first).toContain("otto@acme.example")
          expect(first).toContain("operator")
          expect(first).toContain("Retry now: retry asked by otto@acme.example in the console")
          expect(first).toContain(failed)
          expect(second).toContain("vera.lindqvist")
          expect(second).toContain("tried to act on orders (retry): refused, needs operator")
          expect(second).toContain(failed)
          expect(await rows.nth(0).getAttribute("data-outcome")).toBe("done")
          expect(await rows.nth(1).getAttribute("data-outcome")).toBe("refused")
          expect(await rows.nth(0).locator("td").first().textContent()).toMatch(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}/)
          await otto.screenshot({ path: `${SHOTS}/audit.png`, fullPage: true })
          // The order's own story says who acted.
          await rows.nth(0).locator(`a:has-text('${failed}')`).click()
          expect(await otto.textContent("[data-testid=timeline]")).toContain("retry asked by otto@acme.example in the console")
          await otto.close()
        })
        expect((yield* orders.byReference(failed))?.state).not.toBe("failed")
      })),
    120_000
  )
})
