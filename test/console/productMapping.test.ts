import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, LogLevel } from "effect"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { testDatabases } from "../support/database.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"
import { post } from "../support/pipeline.js"

/**
 * Mapping by product over real HTTP: the daemon (in this process, on PGlite and on PostgreSQL) holds
 * the orders of a store product no row maps; the console proposes a POD variant per store variant by
 * size and colour; one POST writes the rows and the held orders are released and drafted.
 */

const PRODUCT = "7981230099"
const TITLE = "Sunset Wave — Organic Heavyweight T-Shirt, Limited Autumn Edition (Unisex, Relaxed Fit)"
const DESIGN = "https://cdn.podsync.test/designs/sunset-wave/front.png"

const line = (sku: string, variantTitle: string, variantId: string, price: string) => ({
  sku,
  title: TITLE,
  variantTitle,
  variantId,
  productId: PRODUCT,
  quantity: 1,
  price,
  customAttributes: [{ key: "design_front", value: DESIGN }, { key: "_personalization", value: "For Zoë, with love" }]
})
const BLACK_XL = line("SW-BLK-XL", "Black / Extra Large", "4798123009901", "29.00")
const CHARCOAL_XXL = line("SW-CHA-XXL", "charcoal / XXL", "4798123009902", "31.50")
const MUG = {
  sku: "MUG-COFFEE-11",
  title: "Coffee First Mug",
  variantTitle: "White / 11 oz",
  variantId: "4798123009950",
  productId: "7981230150",
  quantity: 1,
  price: "16.00"
}

/** The fields a browser sends for a form: hidden and text inputs, checked boxes, each select's chosen option. */
const formFields = (page: string, testId: string): Array<[string, string]> => {
  const form = new RegExp(`<form[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</form>`).exec(page)?.[1] ?? ""
  const unescape = (text: string) =>
    text.replaceAll("&#123;", "{").replaceAll("&#125;", "}").replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&")
  const fields: Array<[string, string]> = []
  for (const [tag] of form.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(tag)?.[1]
    if (name === undefined || (/type="checkbox"/.test(tag) && !/ checked/.test(tag))) continue
    fields.push([name, unescape(/value="([^"]*)"/.exec(tag)?.[1] ?? "")])
  }
  for (const [, name, options] of form.matchAll(/<select name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const chosen = /<option value="([^"]*)" selected/.exec(options ?? "")?.[1] ?? ""
    fields.push([name!, unescape(chosen)])
  }
  return fields
}

/** A console client with the cookie jar a browser keeps (a local caller's session, then each flash). */
const consoleClient = (base: string) => {
  const jar = new Map<string, string>()
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";")
      const [name = "", value = ""] = pair.split("=")
      if (value === "") jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  const get = async (url: string) => {
    const response = keep(await fetch(`${base}${url}`, { headers: { cookie: cookie() }, redirect: "manual" }))
    return { status: response.status, text: await response.text(), csp: response.headers.get("content-security-policy") ?? "" }
  }
  const postForm = async (url: string, fields: ReadonlyArray<[string, string]>) => {
    const response = keep(
      await fetch(`${base}${url}`, {
        method: "POST",
        headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields.map(([k, v]) => [k, v])).toString(),
        redirect: "manual"
      })
    )
    expect(response.status).toBe(303)
    return get(response.headers.get("location") ?? "")
  }
  return { get, postForm }
}

describe.each(testDatabases())("mapping by product on $name", (database) => {
  it.live(
    "proposes a row per store variant by size and colour, writes them in one step and releases the held orders",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const stack = yield* scopedStack()
        const daemon = yield* daemonInProcess(stack, database.layer, { logLevel: LogLevel.Info })
        const base = `http://127.0.0.1:${daemon.port}`
        const ids = yield* Effect.promise(async () => {
          const made: Array<string> = []
          for (
            const [lineItems, currencyCode] of [
              [[BLACK_XL], "USD"],
              [[CHARCOAL_XXL], "EUR"],
              [[BLACK_XL, CHARCOAL_XXL], "EUR"],
              [[MUG], "USD"]
            ] as const
          ) {
            const order = await post(`${stack.shopify.url}/__sim/orders`, { financialStatus: "PAID", currencyCode, lineItems })
            made.push(`demo-shopify:${String(order.legacyResourceId)}`)
          }
          return made
        })
        const stateOf = (reference: string) =>
          Effect.runPromise(
            Effect.flatMap(OrdersRepo, (repo) => repo.byReference(reference)).pipe(
              Effect.provide(OrdersRepo.Default),
              Effect.provide(daemon.db)
            )
          ).then((o) => o?.state)
        yield* until("the four orders held", async () => (await Promise.all(ids.map(stateOf))).every((s) => s === "held"), 60_000)
        // The whole catalog is cached (the check and the planner read it once the refresh is complete).
        yield* until("the catalog cached", async () => daemon.lines.some((l) => l.includes("POD catalog refreshed")), 60_000)

        const client = consoleClient(base)
        // The store products held orders wait on, the one with the most orders first.
        const list = yield* Effect.promise(() => client.get("/console/mappings/products?store=demo-shopify"))
        expect(list.status).toBe(200)
        expect(list.text).toContain("Sunset Wave — Organic Heavyweight T-Shirt")
        expect(list.text).toContain("Coffee First Mug")
        // The picker: a search of the cached catalog shows each product with its image, swatches, sizes, prices and stock.
        const picked = yield* Effect.promise(() =>
          client.get(`/console/mappings/products?store=demo-shopify&product=${PRODUCT}&q=${encodeURIComponent("bella 3001 jersey")}`)
        )
        expect(picked.text).toContain("Bella+Canvas 3001 Unisex Jersey Tee")
        expect(picked.text).toMatch(/<img class="swatch" src="data:image\/svg\+xml,/)
        expect(picked.text).toContain('src="https://cdn.pod-sim.test/products/uts02/avatar.png"')
        expect(picked.text).toMatch(/Sizes: S, M, L, XL, 2XL, 3XL, 4XL, 5XL/)
        expect(picked.text).toMatch(/from \$\d+\.\d\d/)
        // Images load in the browser from their https address; scripts and styles stay the daemon's own.
        expect(picked.csp).toContain("img-src 'self' data: https:")
        expect(picked.csp).toContain("script-src 'self'")
        const pod = /pod=([0-9a-f-]{36})#review/.exec(picked.text)?.[1]
        expect(pod).toBeDefined()

        const review = yield* Effect.promise(() =>
          client.get(`/console/mappings/products?store=demo-shopify&product=${PRODUCT}&q=bella&pod=${pod}`)
        )
        const fields = formFields(review.text, "review")
        const chosen = (name: string) => fields.find(([k]) => k === name)?.[1]
        // Black / Extra Large → Black / XL; charcoal / XXL → Charcoal / 2XL; the design from the lines' design_front attribute.
        const optionText = (variantId: string | undefined) =>
          new RegExp(`<option value="${variantId}"[^>]*>([^<]*)</option>`).exec(review.text)?.[1] ?? ""
        const rows = [0, 1].map((i) => [chosen(`sku_${i}`), optionText(chosen(`pod_${i}`))])
        expect(rows).toEqual(
          expect.arrayContaining([
            ["SW-BLK-XL", expect.stringMatching(/^Black \/ XL — /)],
            ["SW-CHA-XXL", expect.stringMatching(/^Charcoal \/ 2XL — /)]
          ])
        )
        expect(chosen("front")).toBe("{{attr design_front}}")
        expect(review.text).toContain("taken from each order line's <code>design_front</code> attribute (the held orders' lines carry it)")

        const before = fs.readFileSync(stack.mappingFile, "utf8")
        const done = yield* Effect.promise(() => client.postForm("/console/mappings/products/apply", fields))
        expect(done.text).toMatch(/2 row\(s\) written to .*mappings\.csv/)
        expect(done.text).toContain("3 held order(s) released")
        // The rows are at the end of the file, the previous text kept beside it.
        const after = fs.readFileSync(stack.mappingFile, "utf8")
        expect(after.startsWith(before)).toBe(true)
        expect(after.slice(before.length)).toMatch(/^4798123009901,SW-BLK-XL,GM\d{10},,\{\{attr design_front\}\},/m)
        expect(fs.readFileSync(`${stack.mappingFile}.bak`, "utf8")).toBe(before)
        // The three orders of the product leave held and are drafted; the mug's order still waits on a row.
        yield* until(
          "the product's orders drafted",
          async () => (await Promise.all(ids.slice(0, 3).map(stateOf))).every((s) => s !== "held" && s !== "pulled" && s !== "ready"),
          60_000
        )
        expect(yield* Effect.promise(() => stateOf(ids[3]!))).toBe("held")
        const left = yield* Effect.promise(() => client.get("/console/mappings/products?store=demo-shopify"))
        expect(left.text).not.toContain("Sunset Wave")
        expect(left.text).toContain("Coffee First Mug")
      })),
    120_000
  )

  it.live("refuses rows the check refuses, and writes nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const stack = yield* scopedStack()
      const daemon = yield* daemonInProcess(stack, database.layer, { logLevel: LogLevel.Warning })
      const client = consoleClient(`http://127.0.0.1:${daemon.port}`)
      const page = yield* Effect.promise(() => client.get("/console/mappings/products?store=demo-shopify"))
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1]
      const before = fs.readFileSync(stack.mappingFile, "utf8")
      const answer = (sku: string, podVariant: string) =>
        Effect.promise(() =>
          client.postForm("/console/mappings/products/apply", [
            ["_csrf", csrf ?? ""],
            ["store", "demo-shopify"],
            ["product", PRODUCT],
            ["front", DESIGN],
            ["rows", "1"],
            ["sku_0", sku],
            ["variant_0", ""],
            ["pod_0", podVariant]
          ])
        )
      // A form that names nothing writes nothing.
      expect((yield* answer("SW-BLK-XL", "")).text).toContain("nothing was written: choose a POD variant")
      // A SKU the file maps already: the same check as every console edit refuses the duplicate.
      const duplicate = yield* answer("UTS01-FOREST-S", "GM0002010012")
      expect(duplicate.text).toMatch(/role="alert"[^>]*>[^<]*UTS01-FOREST-S/)
      expect(fs.readFileSync(stack.mappingFile, "utf8")).toBe(before)
    })), 60_000)
})
