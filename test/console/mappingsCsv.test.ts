import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue, Redacted, Schema } from "effect"
import { describe } from "vitest"
import { ConsoleAuth } from "../../src/console/ConsoleAuth.js"
import { mappingsRoutes } from "../../src/console/MappingsRoutes.js"
import { MappingUploads } from "../../src/console/MappingUploads.js"
import { MappingStore } from "../../src/pipeline/MappingStore.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { CatalogVariant } from "../../src/pod/schemas/Catalog.js"
import { AttentionRepo } from "../../src/repos/AttentionRepo.js"
import { ConsoleActionsRepo } from "../../src/repos/ConsoleActionsRepo.js"
import { CatalogRepo } from "../../src/repos/CatalogRepo.js"
import { MappingsRepo } from "../../src/repos/MappingsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { freePort } from "../support/cli.js"
import { pgliteDatabase } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const HEADER = "store_variant_id,store_sku,pod_variant_id,print_front,print_back,ignore"
const FRONT = "https://cdn.example.com/designs/forest-tee-front.png"
const BACK = "https://cdn.example.com/designs/forest-tee-back.png"
const STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"

const variant = (id: string, sku: string, color: string, size: string, stock = "IN_STOCK") =>
  Schema.decodeUnknownSync(CatalogVariant)({
    variant_id: id,
    variant_sku: sku,
    name: `${color} / ${size}`,
    color,
    size,
    stock_label: `${STOCK}${stock}`,
    product: { product_id: "P1", product_name: "Unisex Organic Cotton Tee with a Long Name" }
  })
const CATALOG = [
  variant("GV-TEE-FOREST-S", "TEE-FOREST-S", "Forest Green", "S"),
  variant("GV-TEE-FOREST-M", "TEE-FOREST-M", "Forest Green", "M"),
  variant("GV-TEE-FOREST-L", "TEE-FOREST-L", "Forest Green", "L"),
  variant("GV-TEE-OLD", "TEE-OLD", "Sand", "S", "DISCONTINUED")
]

/**
 * The Mappings page's routes served over real HTTP on a free port, two stores sharing one file,
 * real PGlite, a logged-in session; `replans` says which stores were re-planned.
 */
const consoleServer = (file: string) =>
  Effect.gen(function*() {
    const replans = yield* Queue.unbounded<string>()
    const triggers = Layer.succeed(PipelineTriggers, {
      storeChanged: () => Effect.void,
      podOrderChanged: () => Effect.void,
      replanHeld: (storeKey) => Queue.offer(replans, storeKey ?? "*").pipe(Effect.asVoid)
    })
    const repos = Layer.mergeAll(
      MappingsRepo.Default,
      CatalogRepo.Default,
      AttentionRepo.Default,
      OrdersRepo.Default,
      ConsoleActionsRepo.Default
    ).pipe(
      Layer.provideMerge(pgliteDatabase().layer)
    )
    const auth = ConsoleAuth.Default({
      access: { _tag: "Login", auth: { user: "anna", passwordHash: undefined, token: Redacted.make("the-long-token"), sessionHours: 12 } },
      sessionSecret: undefined
    })
    const port = yield* Effect.promise(() => freePort())
    const services = Layer.mergeAll(
      MappingStore.Default({
        stores: [{ key: "shop-eu", mappings: file }, { key: "shop-us", mappings: file }],
        reloadOnSighup: false,
        pollEvery: "1 hour"
      }).pipe(Layer.provide(triggers)),
      auth,
      MappingUploads.Default
    ).pipe(Layer.provideMerge(repos))
    const server = HttpServer.serve(mappingsRoutes).pipe(
      Layer.provide(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port }))
    )
    const context = yield* Layer.build(Layer.provideMerge(server, services))
    const consoleAuth = Context.get(context, ConsoleAuth)
    const login = yield* consoleAuth.login("127.0.0.1", "anna", "the-long-token")
    if (login._tag !== "LoggedIn") throw new Error("expected a session")
    const cookie = `podsync_console=${consoleAuth.cookieValue(login.session)}`
    const csrf = consoleAuth.csrfToken(login.session)
    const base = `http://127.0.0.1:${port}`
    const get = (url: string) => Effect.promise(() => fetch(`${base}${url}`, { headers: { cookie }, redirect: "manual" }))
    const post = (url: string, body: FormData | URLSearchParams) =>
      Effect.promise(() => {
        body.set("_csrf", csrf)
        return fetch(`${base}${url}`, { method: "POST", headers: { cookie, origin: base }, body, redirect: "manual" })
      })
    const text = (response: Response) => Effect.promise(() => response.text())
    return { get, post, text, replans, context }
  })

const mappingFile = (...rows: ReadonlyArray<string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-mappings-csv-"))
  const file = path.join(dir, "shared-stores.csv")
  fs.writeFileSync(file, [HEADER, ...rows].join("\n") + "\n")
  return file
}

const unescape = (html: string) =>
  html.replaceAll("&quot;", '"').replaceAll("&amp;", "&").replaceAll("&#123;", "{").replaceAll("&#125;", "}")

const uploadForm = (store: string, csv: string, name = "reviewed.csv") => {
  const form = new FormData()
  form.set("store", store)
  form.set("file", new Blob([csv], { type: "text/csv" }), name)
  form.set("csv", "")
  return form
}

describe("the mapping file in and out of the console", () => {
  it.scoped(
    "downloads the file, shows an upload as rows added, removed and changed, and writes it over the file when applied",
    () =>
      Effect.gen(function*() {
        const file = mappingFile(
          `,TEE-FOREST-S,GV-TEE-FOREST-S,${FRONT},,`,
          `,TEE-FOREST-M,GV-TEE-FOREST-M,${FRONT},,`,
          ",GIFT-WRAP,,,,true"
        )
        const { context, get, post, replans, text } = yield* consoleServer(file)
        yield* Effect.provide(Effect.flatMap(CatalogRepo, (repo) => repo.upsert(CATALOG, new Date("2026-11-20T00:00:00Z"))), context)

        const download = yield* get("/console/mappings/file?store=shop-eu")
        expect(download.status).toBe(200)
        expect(download.headers.get("content-type")).toContain("text/csv")
        expect(download.headers.get("content-disposition")).toBe('attachment; filename="shared-stores.csv"')
        const before = yield* text(download)
        expect(before).toBe(fs.readFileSync(file, "utf8"))

        // Reviewed in a spreadsheet: M gets a back design, the gift wrap row goes, L is added.
        const reviewed = [
          HEADER,
          `,TEE-FOREST-S,GV-TEE-FOREST-S,${FRONT},,`,
          `,TEE-FOREST-M,GV-TEE-FOREST-M,${FRONT},${BACK},`,
          `,TEE-FOREST-L,GV-TEE-FOREST-L,${FRONT},,`
        ]
          .join("\r\n") + "\r\n"
        const uploaded = yield* post("/console/mappings/upload", uploadForm("shop-eu", reviewed))
        // A POST answers with a page to GET: a reload never sends it again.
        expect(uploaded.status).toBe(303)
        const preview = yield* get(uploaded.headers.get("location")!)
        const shown = unescape(yield* text(preview))
        expect(preview.status).toBe(200)
        expect(shown).toMatch(/Added <span class="pill">1<\/span>[\s\S]*line 4: <code>store_sku=TEE-FOREST-L/)
        expect(shown).toMatch(/Removed <span class="pill">1<\/span>[\s\S]*line 4: <code>store_sku=GIFT-WRAP, ignore=true/)
        expect(shown).toMatch(new RegExp(`<td>print_back</td><td></td><td>${BACK.replaceAll(".", "\\.")}</td>`))
        expect(shown).toContain("shared-stores.csv")
        // Nothing written before it is applied.
        expect(fs.readFileSync(file, "utf8")).toBe(before)

        const id = /name="id" value="([^"]+)"/.exec(shown)?.[1] ?? ""
        const applied = yield* post("/console/mappings/upload/apply", new URLSearchParams({ id }))
        expect(applied.status).toBe(303)
        expect(fs.readFileSync(file, "utf8")).toBe(reviewed)
        expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(before)
        const notice = unescape(yield* text(yield* get(applied.headers.get("location")!)))
        expect(notice).toContain("1 row(s) added, 1 removed, 1 changed; held orders of shop-eu, shop-us are re-planned")
        // Both stores the file serves have it in force, and their held orders are re-planned.
        const tables = yield* Effect.provide(
          Effect.flatMap(MappingStore, (m) => Effect.all([m.tableFor("shop-eu"), m.tableFor("shop-us")])),
          context
        )
        expect(tables.map((t) => t.rows.map((r) => r.storeSku))).toEqual([
          ["TEE-FOREST-S", "TEE-FOREST-M", "TEE-FOREST-L"],
          ["TEE-FOREST-S", "TEE-FOREST-M", "TEE-FOREST-L"]
        ])
        const replanned = yield* Queue.takeAll(replans)
        expect([...replanned]).toEqual(expect.arrayContaining(["shop-eu", "shop-us"]))
        // Applied once: the same form sent again finds nothing to apply.
        expect((yield* post("/console/mappings/upload/apply", new URLSearchParams({ id }))).status).toBe(404)
      }),
    { timeout: 120_000 }
  )

  it.scoped("refuses an upload with each problem at its line, as podsync check says it, and writes nothing", () =>
    Effect.gen(function*() {
      const file = mappingFile(`,TEE-FOREST-S,GV-TEE-FOREST-S,${FRONT},,`)
      const { context, get, post, text } = yield* consoleServer(file)
      yield* Effect.provide(Effect.flatMap(CatalogRepo, (repo) => repo.upsert(CATALOG, new Date("2026-11-20T00:00:00Z"))), context)
      const before = fs.readFileSync(file, "utf8")
      const broken = [
        HEADER,
        `,TEE-FOREST-S,GV-TEE-FOREST-S,${FRONT},,`,
        ",TEE-FOREST-M,GV-TEE-FOREST-M,,,",
        `,TEE-SAND-S,GV-TEE-OLD,${FRONT},,`
      ].join("\n")
      // Pasted into the text box rather than chosen as a file.
      const form = new FormData()
      form.set("store", "shop-us")
      form.set("csv", broken)
      const uploaded = yield* post("/console/mappings/upload", form)
      expect(uploaded.status).toBe(303)
      const shown = unescape(yield* text(yield* get(uploaded.headers.get("location")!)))
      expect(shown).toContain("Refused: nothing was written")
      expect(shown).toContain("pasted text:3: print_front: a POD item needs a front or a back design")
      expect(shown).toMatch(/pasted text:4: pod_variant_id: POD variant GV-TEE-OLD \(.*\) is discontinued/)
      expect(shown).not.toContain('action="/console/mappings/upload/apply"')
      expect(fs.readFileSync(file, "utf8")).toBe(before)

      // Larger than the limit: refused before it is read whole.
      const huge = yield* post("/console/mappings/upload", uploadForm("shop-us", `${HEADER}\n${"x".repeat(3 * 1024 * 1024)}`))
      expect(huge.status).toBe(413)
      // Without the session's CSRF token nothing is taken.
      const forged = new FormData()
      forged.set("store", "shop-us")
      forged.set("csv", broken)
      const refused = yield* Effect.promise(() =>
        fetch(`${uploaded.url.replace(/\/console.*/, "")}/console/mappings/upload`, { method: "POST", body: forged, redirect: "manual" })
      )
      expect(refused.status).toBe(403)
    }), { timeout: 120_000 })

  it.scoped("offers the rows podsync mappings suggest would add, and adds them to the file in one step", () =>
    Effect.gen(function*() {
      const file = mappingFile(`,TEE-FOREST-S,GV-TEE-FOREST-S,${FRONT},,`)
      const { context, get, post, text } = yield* consoleServer(file)
      yield* Effect.provide(
        Effect.gen(function*() {
          yield* Effect.flatMap(CatalogRepo, (repo) => repo.upsert(CATALOG, new Date("2026-11-20T00:00:00Z")))
          const orders = yield* OrdersRepo
          yield* orders.upsertPulled(
            sampleOrder({
              storeKey: "shop-eu",
              storeOrderId: "5001",
              lines: [
                sampleLine({ variantId: "801", sku: "TEE-FOREST-S", title: "Forest Tee", variantTitle: "Forest Green / S" }),
                sampleLine({ variantId: "802", sku: "SHOP-FOREST-L", title: "Forest Tee", variantTitle: "Forest Green / L" }),
                sampleLine({ variantId: "803", sku: "SHOP-MUG", title: "Mug", variantTitle: "White / 11oz" })
              ]
            }),
            "shop-eu:5001"
          )
        }),
        context
      )
      const page = unescape(yield* text(yield* get("/console/mappings?store=shop-eu")))
      expect(page).toContain("also the mapping file of shop-us")
      expect(page).toMatch(/data-testid="suggested"[\s\S]*SHOP-FOREST-L[\s\S]*GV-TEE-FOREST-L/)
      expect(page).toContain("Add 1 row(s) and 1 row(s) to complete to the file")
      const draft = yield* text(yield* get("/console/mappings/suggest.csv?store=shop-eu"))
      expect(draft).toMatch(/^# 803,SHOP-MUG,/m)

      const merged = yield* post("/console/mappings/merge", new URLSearchParams({ store: "shop-eu" }))
      expect(merged.status).toBe(303)
      const after = fs.readFileSync(file, "utf8")
      expect(after).toContain(`802,SHOP-FOREST-L,GV-TEE-FOREST-L,${FRONT}`)
      expect(after).toMatch(/^# 803,SHOP-MUG,/m)
      const table = yield* Effect.provide(Effect.flatMap(MappingStore, (m) => m.tableFor("shop-eu")), context)
      expect(table.rows.map((r) => r.storeSku)).toEqual(["TEE-FOREST-S", "SHOP-FOREST-L"])
      expect(unescape(yield* text(yield* get(merged.headers.get("location")!)))).toContain("added 1 row(s) to")
    }), { timeout: 120_000 })
})
