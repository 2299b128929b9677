import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, expect, layer } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Logger, Queue, TestClock } from "effect"
import { MappingStore } from "../../src/pipeline/MappingStore.js"
import { PipelineTriggers } from "../../src/pipeline/PipelineTriggers.js"
import { MappingsRepo } from "../../src/repos/MappingsRepo.js"
import { testDatabases } from "../support/database.js"

const HEADER =
  "store_variant_id,store_sku,pod_variant_id,pod_legacy_id,print_front,print_back,print_pocket,print_left_sleeve,print_right_sleeve,print_whole,barcode_url,ignore"
const row = (sku: string, pod: string, front = "https://cdn.example.com/front.png") => `,${sku},${pod},,${front},,,,,,,`

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-mapping-store-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const writeMappings = (file: string, ...lines: ReadonlyArray<string>) => fs.writeFileSync(file, [HEADER, ...lines].join("\n") + "\n")

/** The pipeline's side of the port: which stores were asked to re-plan. */
const recordingTriggers = Effect.map(Queue.unbounded<string>(), (replans) => ({
  replans,
  layer: Layer.succeed(PipelineTriggers, {
    storeChanged: () => Effect.void,
    podOrderChanged: () => Effect.void,
    replanHeld: (storeKey) => Queue.offer(replans, storeKey ?? "*").pipe(Effect.asVoid)
  })
}))

const storeLayer = (
  stores: ReadonlyArray<{ key: string; mappings: string }>,
  triggers: Layer.Layer<PipelineTriggers>,
  reloadOnSighup = false
) => MappingStore.Default({ stores, reloadOnSighup }).pipe(Layer.provide(triggers), Layer.provideMerge(MappingsRepo.Default))

/** Starts a store for the life of the current scope. */
const startStore = (
  stores: ReadonlyArray<{ key: string; mappings: string }>,
  triggers: Layer.Layer<PipelineTriggers>,
  reloadOnSighup = false
) =>
  Effect.map(Layer.build(storeLayer(stores, triggers, reloadOnSighup)), (context) => ({
    store: Context.get(context, MappingStore),
    repo: Context.get(context, MappingsRepo)
  }))

const skus = (store: MappingStore, key: string) => Effect.map(store.tableFor(key), (t) => t.rows.map((r) => `${r.line}:${r.storeSku}`))

let stores = 0
/** A store key and file of its own: the database is shared by the suite. */
const freshStore = () => {
  stores++
  return { key: `store-${stores}`, mappings: path.join(dir, `store-${stores}.csv`) }
}

/** Two stores, mapping a variant each: UTS01-FOREST-S to v-1 in the first, UTS01-FOREST-L to v-3 in the second. */
const twoStores = () => {
  const a = freshStore()
  const b = freshStore()
  writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"))
  writeMappings(b.mappings, row("UTS01-FOREST-L", "v-3"))
  return [a, b] as const
}

for (const database of testDatabases()) {
  // The standalone `layer`: `it.layer` of a second suite in one file would nest in the first one's layer.
  layer(database.layer)(`MappingStore on ${database.name}`, (it) => {
    it.scoped("loads every store's file at start, into memory and into variant_mappings, lines kept", () =>
      Effect.gen(function*() {
        const a = freshStore()
        const b = freshStore()
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), ",OLD-SKU,,,,,,,,,,true", row("UTS01-FOREST-M", "v-2", "{{attr design}}"))
        writeMappings(b.mappings, ",GIFT-CARD,,,,,,,,,,yes")
        const { layer } = yield* recordingTriggers
        const { repo, store } = yield* startStore([a, b], layer)
        expect(yield* skus(store, a.key)).toEqual(["2:UTS01-FOREST-S", "3:OLD-SKU", "4:UTS01-FOREST-M"])
        const table = yield* store.tableFor(a.key)
        expect(table.bySku.get("UTS01-FOREST-M")?.prints).toEqual([
          { location: "PRINT_LOCATION_CODE_FRONT", source: { _tag: "Attribute", name: "design" } }
        ])
        expect((yield* store.tableFor(b.key)).bySku.get("GIFT-CARD")?.ignore).toBe(true)
        const stored = yield* repo.load(a.key)
        expect(stored?.sourceFile).toBe(a.mappings)
        expect(stored?.table.rows).toEqual(table.rows)
        expect((yield* store.tableFor("no-such-store")).rows).toEqual([])
      }))

    it.scoped("takes a changed file into effect within 5 s and re-plans that store's held orders", () =>
      Effect.gen(function*() {
        const [a, b] = twoStores()
        const { layer, replans } = yield* recordingTriggers
        const { repo, store } = yield* startStore([a, b], layer)
        const startReplans = yield* Queue.takeAll(replans)
        expect([...startReplans].sort()).toEqual([a.key, b.key])

        const editedAt = yield* Clock.currentTimeMillis
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), row("UTS01-FOREST-M", "v-2"))
        yield* TestClock.adjust("1 second")
        expect(yield* Queue.take(replans)).toBe(a.key)
        expect((yield* Clock.currentTimeMillis) - editedAt).toBeLessThanOrEqual(5_000)
        expect(yield* skus(store, a.key)).toEqual(["2:UTS01-FOREST-S", "3:UTS01-FOREST-M"])
        expect((yield* repo.load(a.key))?.table.rows.map((r) => r.storeSku)).toEqual(["UTS01-FOREST-S", "UTS01-FOREST-M"])

        // Saved again without a change: nothing to re-plan.
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), row("UTS01-FOREST-M", "v-2"))
        yield* TestClock.adjust("1 second")
        const reports = yield* store.reload()
        expect(reports.map((r) => r.outcome)).toEqual(["unchanged", "unchanged"])
        expect(yield* Queue.size(replans)).toBe(0)
      }))

    const logs: Array<string> = []
    it.scoped("keeps the previous table when an edit breaks a row, and names the file, line and column", () =>
      Effect.gen(function*() {
        const a = freshStore()
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"))
        const { layer, replans } = yield* recordingTriggers
        const { store } = yield* startStore([a], layer)
        yield* Queue.takeAll(replans)

        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), `,UTS01-FOREST-M,v-2,10042,https://cdn.example.com/f.png,,,,,,,`)
        const [report] = yield* store.reload(a.key)
        expect(report).toMatchObject({ outcome: "kept_previous", rows: 1 })
        expect(report?.issues).toEqual([`${a.mappings}:3: pod_variant_id: give exactly one of pod_variant_id and pod_legacy_id, not both`])
        expect(yield* skus(store, a.key)).toEqual(["2:UTS01-FOREST-S"])
        expect(logs.some((line) => line.includes(`${a.mappings}:3: pod_variant_id:`))).toBe(true)
        expect(yield* Queue.size(replans)).toBe(0)

        // Fixed: the new table takes over and held orders are re-planned.
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), row("UTS01-FOREST-M", "v-2"))
        yield* TestClock.adjust("1 second")
        expect(yield* Queue.take(replans)).toBe(a.key)
        expect(yield* skus(store, a.key)).toEqual(["2:UTS01-FOREST-S", "3:UTS01-FOREST-M"])
      }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push([message].flat().join(" ")))))))

    it.scoped("loads the valid rows of a first file with issues, and keeps the loaded rows across a restart with a broken file", () =>
      Effect.gen(function*() {
        const a = freshStore()
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-1"), row("UTS01-FOREST-M", ""), row("UTS01-FOREST-L", "v-3"))
        const { layer } = yield* recordingTriggers
        const first = yield* Effect.scoped(
          Effect.flatMap(startStore([a], layer), ({ store }) => Effect.all([skus(store, a.key), store.reload(a.key)]))
        )
        expect(first[0]).toEqual(["2:UTS01-FOREST-S", "4:UTS01-FOREST-L"])
        expect(first[1][0]?.issues).toEqual([`${a.mappings}:3: pod_variant_id: give pod_variant_id or pod_legacy_id (or set ignore=true)`])

        // The daemon restarts after the file was broken: the rows it had stay in force.
        fs.writeFileSync(a.mappings, "sku,variant\nUTS01-FOREST-S,v-1\n")
        const afterRestart = yield* Effect.scoped(
          Effect.flatMap(startStore([a], layer), ({ store }) => Effect.all([skus(store, a.key), store.reload(a.key)]))
        )
        expect(afterRestart[0]).toEqual(["2:UTS01-FOREST-S", "4:UTS01-FOREST-L"])
        expect(afterRestart[1][0]?.outcome).toBe("kept_previous")
        expect(afterRestart[1][0]?.issues[0]).toContain(`${a.mappings}:1: missing columns: store_variant_id`)

        const missing = yield* Effect.scoped(
          Effect.flatMap(startStore([a], layer), ({ store }) => store.reload("not-configured").pipe(Effect.flip))
        )
        expect(missing._tag).toBe("UnknownStoreError")
      }))

    it.scoped("reloads every file on SIGHUP", () =>
      Effect.gen(function*() {
        const [a, b] = twoStores()
        const { layer, replans } = yield* recordingTriggers
        const { store } = yield* startStore([a, b], layer, true)
        yield* Queue.takeAll(replans)
        writeMappings(a.mappings, row("UTS01-FOREST-S", "v-9"))
        writeMappings(b.mappings, row("UTS01-FOREST-L", "v-8"))
        // No clock step: the poll does not run; the signal alone reloads.
        process.emit("SIGHUP", "SIGHUP")
        const woken = [yield* Queue.take(replans), yield* Queue.take(replans)]
        expect(woken.sort()).toEqual([a.key, b.key])
        expect((yield* store.tableFor(a.key)).bySku.get("UTS01-FOREST-S")?.pod).toEqual({ variantId: "v-9" })
      }))
  })
}
