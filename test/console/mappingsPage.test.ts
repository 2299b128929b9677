import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApp } from "@effect/platform"
import { expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue, Redacted, Schema, TestClock } from "effect"
import { describe } from "vitest"
import { ConsoleAuth } from "../../src/console/ConsoleAuth.js"
import { mappingsRoutes } from "../../src/console/MappingsRoutes.js"
import { MappingUploads } from "../../src/console/MappingUploads.js"
import { MappingStore } from "../../src/pipeline/MappingStore.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { CatalogVariant } from "../../src/pod/schemas/Catalog.js"
import { AttentionRepo } from "../../src/repos/AttentionRepo.js"
import { CatalogRepo } from "../../src/repos/CatalogRepo.js"
import { ConsoleActionsRepo } from "../../src/repos/ConsoleActionsRepo.js"
import { MappingsRepo } from "../../src/repos/MappingsRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { pgliteDatabase } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"

const STORE = "acme-shopify"
const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
const row = (sku: string, pod: string) => `,${sku},${pod},,{{attr design_front}},,,,,,,`
const STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"

const variant = (id: string, sku: string, product: string, color: string, size: string, stock = "IN_STOCK") =>
  Schema.decodeUnknownSync(CatalogVariant)({
    variant_id: id,
    variant_sku: sku,
    name: `${color} / ${size}`,
    color,
    size,
    stock_label: `${STOCK}${stock}`,
    product: { product_id: product, product_name: product === "P1" ? "Unisex Organic Tee" : "Classic Hoodie" }
  })

const CATALOG = [
  variant("GV-TEE-FOREST-L", "TEE-FOREST-L", "P1", "Forest Green", "L"),
  variant("GV-TEE-BLACK-M", "TEE-BLACK-M", "P1", "Black", "M"),
  variant("GV-TEE-OLD", "TEE-OLD", "P1", "Sand", "S", "DISCONTINUED"),
  variant("GV-HOOD-NAVY-XL", "HOOD-NAVY-XL", "P2", "Navy", "XL")
]

/** The store's mapping file in a folder of its own, with these rows after the header. */
const mappingFile = (...rows: ReadonlyArray<string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-mappings-page-"))
  const file = path.join(dir, "mappings.csv")
  fs.writeFileSync(file, [HEADER, ...rows].join("\n") + "\n")
  return { dir, file }
}

/**
 * The Mappings page's routes over a real PGlite, the store's file, the cached catalog and a
 * logged-in session: `get` and `post` answer the page's HTML; `replans` which stores were re-planned.
 */
const consoleOn = (file: string) =>
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
    const context = yield* Layer.build(
      Layer.mergeAll(
        MappingStore.Default({ stores: [{ key: STORE, mappings: file }], reloadOnSighup: false, pollEvery: "1 hour" }).pipe(
          Layer.provide(triggers)
        ),
        auth,
        MappingUploads.Default
      ).pipe(Layer.provideMerge(repos))
    )
    const runtime = yield* Effect.provide(
      Effect.runtime<Layer.Layer.Success<typeof repos> | MappingStore | ConsoleAuth | MappingUploads>(),
      context
    )
    const handler = HttpApp.toWebHandlerRuntime(runtime)(mappingsRoutes)
    const consoleAuth = Context.get(context, ConsoleAuth)
    const login = yield* consoleAuth.login("127.0.0.1", "anna", "the-long-token")
    if (login._tag !== "LoggedIn") throw new Error("expected a session")
    const cookie = `podsync_console=${consoleAuth.cookieValue(login.session)}`
    const csrf = consoleAuth.csrfToken(login.session)
    const get = (url: string) =>
      Effect.promise(() => handler(new Request(`http://console.test${url}`, { headers: { cookie } })).then((r) => r.text()))
    // A form answers 303 to its page with the outcome in a flash cookie; the page shows it once.
    const post = (url: string, fields: ReadonlyArray<readonly [string, string]>) =>
      Effect.promise(async () => {
        const answer = await handler(
          new Request(`http://console.test${url}`, {
            method: "POST",
            headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams([["_csrf", csrf], ...fields.map(([k, v]) => [k, v])]).toString()
          })
        )
        expect(answer.status).toBe(303)
        const flash = (answer.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
        const shown = await handler(
          new Request(`http://console.test${answer.headers.get("location") ?? ""}`, { headers: { cookie: `${cookie}; ${flash}` } })
        )
        // Shown once: the page clears the flash, so a reload shows the page without it.
        expect(shown.headers.get("set-cookie")).toMatch(/^podsync_flash=;/)
        return shown.text()
      })
    return { get, post, replans, context }
  })

/** An order of the store held because no mapping row names its line. */
const heldOrder = (storeOrderId: string, line: Parameters<typeof sampleLine>[0]) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const { id } = yield* repo.upsertPulled(
      sampleOrder({ storeKey: STORE, storeOrderId, lines: [sampleLine(line)] }),
      `${STORE}:${storeOrderId}`
    )
    yield* repo.transition(id, "pulled", "held", {
      reason: "pipeline: held",
      actor: "worker",
      held: { code: "unmatched", details: { message: `no mapping row for ${line?.sku ?? ""}` } },
      nextAttemptAt: null
    })
  })

const cachedCatalog = Effect.flatMap(CatalogRepo, (repo) => repo.upsert(CATALOG, new Date("2026-11-20T00:00:00Z")))

/** The hidden fields and inputs of the edit form on a page, as the browser would send them. */
const editFields = (page: string) =>
  [...page.matchAll(/<input (?:type="hidden" )?name="((?:old_)?[a-z_]+)" value="([^"]*)"/g)]
    .filter(([, name]) => name !== "_csrf")
    .map(([, name, value]) => [name!, value!.replaceAll("&#123;", "{").replaceAll("&#125;", "}")] as const)

const unescape = (text: string) => text.replaceAll("&quot;", '"').replaceAll("&amp;", "&")

describe("the console's Mappings page", () => {
  it.scoped("shows, for each SKU held orders wait on, the POD variant podsync mappings suggest would choose, and prefills the add form with it", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"))
      const { context, get } = yield* consoleOn(file)
      yield* Effect.provide(
        Effect.all([
          cachedCatalog,
          heldOrder("1", { sku: "TEE-FOREST-L", variantId: "701", title: "Unisex Organic Tee", variantTitle: "Forest Green / L" }),
          heldOrder("2", { sku: "SHOP-HOODIE-9", variantId: "702", title: "Classic Hoodie", variantTitle: "Navy / XL" }),
          heldOrder("3", { sku: "MUG-11OZ", variantId: "703", title: "Mug", variantTitle: "White / 11oz" })
        ]),
        context
      )
      const page = unescape(yield* get(`/console/mappings?store=${STORE}`))
      const waiting = page.slice(page.indexOf(`data-testid="waiting"`), page.indexOf("</table>", page.indexOf(`data-testid="waiting"`)))
      expect(waiting).toContain("<code>GV-TEE-FOREST-L</code> <span>suggested by SKU: TEE-FOREST-L (Unisex Organic Tee, Forest Green / L)")
      expect(waiting).toContain("<code>GV-HOOD-NAVY-XL</code> <span>suggested by colour and size: check it: HOOD-NAVY-XL")
      expect(waiting).toContain("no match: no catalog variant has its SKU")
      expect(waiting).toContain(`href="/console/mappings?store=${STORE}&sku=TEE-FOREST-L&variant=701&pod=GV-TEE-FOREST-L#add"`)
      // No suggestion, nothing prefilled.
      expect(waiting).toContain(`href="/console/mappings?store=${STORE}&sku=MUG-11OZ&variant=703#add"`)
      const mapIt = yield* get(`/console/mappings?store=${STORE}&sku=TEE-FOREST-L&variant=701&pod=GV-TEE-FOREST-L`)
      expect(mapIt).toContain(`name="pod_variant_id" placeholder="GM0002010011" value="GV-TEE-FOREST-L"`)
      expect(mapIt).toContain(`name="store_sku" value="TEE-FOREST-L"`)
    }))

  it.scoped("lists what podsync check says of the file's rows against the cached catalog, by file and line", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(
        row("TEE-BLACK-M", "GV-TEE-BLACK-M"),
        row("TEE-NOPE", "GV-NOT-THERE"),
        row("TEE-SAND-S", "GV-TEE-OLD"),
        row("TEE-FOREST-L", "TEE-FOREST-L")
      )
      const { context, get } = yield* consoleOn(file)
      const before = unescape(yield* get(`/console/mappings?store=${STORE}`))
      expect(before).toContain("No catalog is cached yet")
      yield* Effect.provide(cachedCatalog, context)
      // The planner's snapshot of the catalog looks for a refresh every 30 seconds.
      yield* TestClock.adjust("31 seconds")
      const page = unescape(yield* get(`/console/mappings?store=${STORE}`))
      const lint = page.slice(page.indexOf(`data-testid="lint"`), page.indexOf("</ul>", page.indexOf(`data-testid="lint"`)))
      expect(lint).not.toContain(`${file}:2:`)
      expect(lint).toContain(`${file}:3: pod_variant_id: POD variant GV-NOT-THERE is not in the POD catalog`)
      expect(lint).toContain(`${file}:4: pod_variant_id: POD variant GV-TEE-OLD (Unisex Organic Tee, Sand / S) is discontinued`)
      expect(lint).toContain(
        `${file}:5: pod_variant_id: "TEE-FOREST-L" is not a POD variant id: that is the SKU of variant GV-TEE-FOREST-L`
      )
    }))

  it.scoped("changes a row in place from its edit form, keeping the previous file as .bak, and re-plans the store's held orders", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"), row("TEE-SAND-S", "GV-TEE-OLD"), row("HOOD", "GV-HOOD-NAVY-XL"))
      const before = fs.readFileSync(file, "utf8")
      const { get, post, replans } = yield* consoleOn(file)
      yield* Queue.takeAll(replans)
      const form = yield* get(`/console/mappings?store=${STORE}&edit=3`)
      expect(form).toContain("Change line 3 of")
      const fields = editFields(form)
      expect(fields).toContainEqual(["old_store_sku", "TEE-SAND-S"])
      expect(fields).toContainEqual(["pod_variant_id", "GV-TEE-OLD"])
      const changed = fields.map((
        [name, value]
      ) => (name === "pod_variant_id" ? [name, "GV-TEE-FOREST-L"] as const : [name, value] as const))
      const answer = unescape(yield* post("/console/mappings/edit", [["store", STORE], ["line", "3"], ...changed]))
      expect(answer).toContain(`line 3 of ${file} changed (previous version in ${file}.bak)`)
      const lines = fs.readFileSync(file, "utf8").split("\n")
      expect(lines[2]).toBe(",TEE-SAND-S,GV-TEE-FOREST-L,,{{attr design_front}},,,,,,,")
      expect(lines.filter((_, i) => i !== 2)).toEqual(before.split("\n").filter((_, i) => i !== 2))
      expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(before)
      expect(yield* Queue.takeAll(replans)).toContainEqual(STORE)
      // The table in force is the edited file's.
      expect(answer).toMatch(/<tr data-line="3"><td>3<\/td><td><\/td><td>TEE-SAND-S<\/td><td>GV-TEE-FOREST-L<\/td>/)
    }))

  it.scoped("refuses an edit when the line no longer holds the row that was shown, and writes nothing", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"), row("TEE-SAND-S", "GV-TEE-OLD"))
      const { get, post } = yield* consoleOn(file)
      const fields = editFields(yield* get(`/console/mappings?store=${STORE}&edit=3`))
      // Someone inserts a row above it meanwhile: line 3 now holds another row.
      const edited = [HEADER, row("TEE-BLACK-M", "GV-TEE-BLACK-M"), row("HOOD", "GV-HOOD-NAVY-XL"), row("TEE-SAND-S", "GV-TEE-OLD")]
        .join("\n") + "\n"
      fs.writeFileSync(file, edited)
      const changed = fields.map((
        [name, value]
      ) => (name === "pod_variant_id" ? [name, "GV-TEE-FOREST-L"] as const : [name, value] as const))
      const answer = unescape(yield* post("/console/mappings/edit", [["store", STORE], ["line", "3"], ...changed]))
      expect(answer).toContain(`cannot change line 3 of ${file}: the file changed meanwhile`)
      expect(answer).toContain("store_sku=HOOD")
      expect(answer).toContain(`role="alert"`)
      expect(fs.readFileSync(file, "utf8")).toBe(edited)
      expect(fs.existsSync(`${file}.bak`)).toBe(false)
      // The form is open again with what was typed, now checked against what line 3 holds.
      const reopened = editFields(answer)
      expect(reopened).toContainEqual(["pod_variant_id", "GV-TEE-FOREST-L"])
      expect(reopened).toContainEqual(["store_sku", "TEE-SAND-S"])
      expect(reopened).toContainEqual(["old_store_sku", "HOOD"])
    }))

  it.scoped("refuses a row the file already has, writes nothing, and shows the add form again with what was typed", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"))
      const before = fs.readFileSync(file, "utf8")
      const { post } = yield* consoleOn(file)
      const answer = unescape(
        yield* post("/console/mappings/add", [
          ["store", STORE],
          ["store_sku", "TEE-BLACK-M"],
          ["pod_variant_id", "GV-TEE-FOREST-L"],
          ["print_front", "{{attr design_front}}"]
        ])
      )
      expect(answer).toContain(`role="alert"`)
      expect(fs.readFileSync(file, "utf8")).toBe(before)
      const add = answer.slice(answer.indexOf(`data-testid="add-row"`), answer.indexOf("</form>", answer.indexOf(`data-testid="add-row"`)))
      expect(add).toContain(`name="store_sku" value="TEE-BLACK-M"`)
      expect(add).toContain(`name="pod_variant_id" placeholder="GM0002010011" value="GV-TEE-FOREST-L"`)
      expect(add).toContain(`name="print_front" placeholder="{{attr design_front}}" value="{{attr design_front}}"`)
    }))

  it.scoped("explains an edit that cannot be written and gives the row to paste by hand, leaving the file as it was", () =>
    Effect.gen(function*() {
      const { file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"))
      const before = fs.readFileSync(file, "utf8")
      const { get, post } = yield* consoleOn(file)
      const fields = editFields(yield* get(`/console/mappings?store=${STORE}&edit=2`))
      // The backup's place is taken by a folder: the write fails before the file is touched.
      fs.mkdirSync(`${file}.bak`)
      const changed = fields.map((
        [name, value]
      ) => (name === "print_front" ? [name, "https://cdn.example.com/new.png"] as const : [name, value] as const))
      const answer = unescape(yield* post("/console/mappings/edit", [["store", STORE], ["line", "2"], ...changed]))
      expect(answer).toContain(`cannot change line 2 of ${file}: the file could not be written (EISDIR)`)
      expect(answer).toContain(`<pre data-testid="paste">,TEE-BLACK-M,GV-TEE-BLACK-M,,https://cdn.example.com/new.png,,,,,,,`)
      expect(fs.readFileSync(file, "utf8")).toBe(before)
    }))

  it.scoped(
    "explains a read-only file (a ConfigMap) with the line to replace and the row to paste",
    () =>
      Effect.gen(function*() {
        const { dir, file } = mappingFile(row("TEE-BLACK-M", "GV-TEE-BLACK-M"))
        const { get, post } = yield* consoleOn(file)
        const fields = editFields(yield* get(`/console/mappings?store=${STORE}&edit=2`))
        fs.chmodSync(file, 0o444)
        fs.chmodSync(dir, 0o555)
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.chmodSync(dir, 0o755)))
        // Root writes into a read-only folder all the same: as root (CI), the request is answered
        // with the effective user nobody's rights, as a daemon not running as root would have.
        const asRoot = process.geteuid?.() === 0
        if (asRoot) {
          process.seteuid?.(65534)
          yield* Effect.addFinalizer(() => Effect.sync(() => process.seteuid?.(0)))
        }
        const changed = fields.map((
          [name, value]
        ) => (name === "pod_variant_id" ? [name, "GV-TEE-FOREST-L"] as const : [name, value] as const))
        const answer = unescape(yield* post("/console/mappings/edit", [["store", STORE], ["line", "2"], ...changed]))
        if (asRoot) process.seteuid?.(0)
        expect(answer).toContain("is read-only here (a Kubernetes ConfigMap is): replace line 2 of its source with the row below by hand")
        expect(answer).toContain(`<pre data-testid="paste">,TEE-BLACK-M,GV-TEE-FOREST-L,`)
      })
  )
})
