import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Option, Schema } from "effect"
import { cellsOfRow, emptyCells, type MappingCells } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS } from "../domain/MappingTable.js"
import { suggestionFor } from "../mapping/MappingSuggest.js"
import { describeCatalogProblem, lintAgainstCatalog } from "../pipeline/CatalogCheck.js"
import { appendMappingRow, type MappingWriteError, replaceMappingRow } from "../pipeline/MappingEdit.js"
import { describeIssues, readMappingFile } from "../pipeline/MappingFile.js"
import { MappingStore } from "../pipeline/MappingStore.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { chrome, type Form, getPage, param, postAction, query, recordActions } from "./ConsoleRequest.js"
import { type Caller, htmlResponse } from "./ConsoleGuard.js"
import { fitText, redirectWithFlash, withFlash } from "./ConsoleFlash.js"
import { page } from "./Html.js"
import { mappingsCsvRoutes } from "./MappingsCsvRoutes.js"
import { fileSection } from "./MappingsCsvView.js"
import { MappingUploads } from "./MappingUploads.js"
import { cachedCatalog, suggestDraftFrom } from "../pipeline/SuggestDraft.js"
import { type Flash, type MappingsInput, mappingsContent, type Prefill } from "./MappingsView.js"

/**
 * The console's Mappings page (issue 15): the rows in force, each with an edit form; the SKUs held
 * orders wait on, each with the POD variant `podsync mappings suggest` would choose; what
 * `podsync check` says of the file; and forms that add or change a row of the store's file.
 * Suggestions and the lint read the cached catalog only: a page view asks the POD API nothing.
 */

interface PageRequest {
  readonly store: string | undefined
  readonly prefill: Prefill
  /** The line of the row whose edit form is open. */
  readonly edit?: number | undefined
  /** What was typed into a refused change of that line, shown again in its form. */
  readonly typed?: Partial<MappingCells> | undefined
  /** What the POST that redirected here did. */
  readonly notice?: Flash | undefined
}

/** What a write answered, and the form to show again when it was refused. */
interface WriteAnswer {
  readonly flash: Flash
  readonly reopen?: Pick<PageRequest, "prefill" | "edit" | "typed">
}

/** What `podsync check` says of a mapping file: its rows' issues, then each mapped POD variant against the cached catalog. */
const lintOf = (file: string) =>
  Effect.gen(function*() {
    const read = yield* Effect.either(readMappingFile(file))
    if (read._tag === "Left") return { lines: [read.left.message], catalogCached: true }
    const lookup = yield* (yield* CatalogRepo).lookup
    const issues = describeIssues(read.right)
    if (lookup === undefined) return { lines: issues, catalogCached: false }
    return { lines: [...issues, ...lintAgainstCatalog(file, read.right.table, lookup).map(describeCatalogProblem)], catalogCached: true }
  })

const mappingsPage = (caller: Caller, request: PageRequest, flash: Flash | undefined) =>
  Effect.gen(function*() {
    const mappings = yield* MappingStore
    const storeKeys = mappings.storeKeys
    const storeKey = request.store !== undefined && storeKeys.includes(request.store) ? request.store : storeKeys[0]
    const file = storeKey === undefined ? undefined : mappings.fileOf(storeKey)
    const table = storeKey === undefined ? undefined : yield* mappings.tableFor(storeKey)
    const mapped = new Set((table?.rows ?? []).flatMap((row) => {
      const cells = cellsOfRow(row)
      return [cells.store_sku, cells.store_variant_id].filter((c) => c !== "")
    }))
    const lines = storeKey === undefined
      ? []
      : (yield* Effect.flatMap(AttentionRepo, (repo) => repo.unmatchedLines(storeKey)))
        .filter((line) => !mapped.has(line.sku) && !mapped.has(line.variantId))
    // The catalog is read once per page, and only when a line waits on a row.
    const catalog = lines.length === 0 ? [] : yield* (yield* CatalogRepo).entries
    const waiting = lines.map((line) => ({
      ...line,
      suggestion: catalog.length === 0 ? undefined : suggestionFor({
        storeSku: line.sku || undefined,
        storeVariantId: line.variantId || undefined,
        title: line.title ?? undefined,
        variantTitle: line.variantTitle ?? undefined
      }, catalog)
    }))
    const lint = file === undefined ? undefined : yield* lintOf(file)
    const problems = (yield* mappings.problems).filter((m) => m.storeKey === storeKey)
      .map((m) => `${m.file} does not load whole (${m.outcome}): ${m.issues.join("; ")}`)
    const row = request.edit === undefined ? undefined : table?.rows.find((r) => r.line === request.edit)
    const shown = row === undefined ? undefined : cellsOfRow(row)
    const editing = row === undefined || shown === undefined
      ? undefined
      : { line: row.line, cells: request.typed === undefined ? shown : { ...emptyCells, ...request.typed }, shown }
    const sharedWith = storeKey === undefined ? [] : storeKeys.filter((k) => k !== storeKey && mappings.fileOf(k) === file)
    const suggested = storeKey === undefined || file === undefined || !(lint?.catalogCached ?? false)
      ? undefined
      : yield* suggestDraftFrom(storeKey, file, cachedCatalog).pipe(
        Effect.map((draft) => draft.additions),
        Effect.catchTag("MappingFileError", () => Effect.succeed(undefined))
      )
    const input: MappingsInput = {
      storeKeys,
      storeKey,
      file,
      table,
      waiting,
      catalogCached: lint?.catalogCached ?? true,
      lint: lint?.lines,
      problems,
      csrfToken: caller.csrfToken,
      prefill: request.prefill,
      editing,
      flash: flash ?? request.notice,
      fileSection: storeKey === undefined || file === undefined
        ? undefined
        : fileSection({ storeKey, file, csrfToken: caller.csrfToken, sharedWith, additions: suggested })
    }
    return htmlResponse(page(yield* chrome(caller, "Mappings", "mappings"), mappingsContent(input)))
  })

/** The cells a form names, trimmed; `prefix` reads the hidden copy of the row as it was shown. */
const cellsOfForm = (form: Form, prefix = ""): Partial<MappingCells> =>
  Object.fromEntries(MAPPING_COLUMNS.flatMap((c) => {
    const value = param(form, `${prefix}${c}`)
    return value === undefined ? [] : [[c, value.trim()]]
  }))

const refusedWrite = (error: MappingWriteError): Flash => ({
  ok: false,
  text: fitText(error.message, 800),
  ...(error.line === "" ? {} : { line: fitText(error.line, 1200) })
})

const optionalText = Schema.optional(Schema.String)

/** A write's answer as it travels to the page the POST redirects to (ConsoleFlash). */
const WriteFlash = Schema.Struct({
  flash: Schema.Struct({ ok: Schema.Boolean, text: Schema.String, line: optionalText }),
  reopen: Schema.optional(Schema.Struct({
    prefill: Schema.Struct({ sku: optionalText, variantId: optionalText, podVariantId: optionalText, printFront: optionalText }),
    edit: Schema.optional(Schema.Number),
    typed: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  }))
})

/** The typed cells a refused change carries back, each cut so that the flash fits its cookie. */
const fitCells = (cells: Partial<MappingCells> | undefined) =>
  cells === undefined ? undefined : Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, fitText(v ?? "", 200)]))

/** Where a write sends the browser back: the store's page, the refused row's form open. */
const pageAddress = (store: string, edit: number | undefined) =>
  `/console/mappings?${new URLSearchParams([["store", store], ...(edit === undefined ? [] : [["edit", String(edit)]])]).toString()}`

/** A POST to the page: admitted with its CSRF token, then the store's file, or the page saying there is none. */
const writeAction = <E, R>(
  kind: "mapping_add" | "mapping_edit",
  write: (form: Form, caller: Caller, store: string, file: string) => Effect.Effect<WriteAnswer, E, R>
) =>
  postAction((caller, form) =>
    Effect.gen(function*() {
      const store = param(form, "store") ?? ""
      const file = (yield* MappingStore).fileOf(store)
      if (file === undefined) {
        return yield* redirectWithFlash("/console/mappings", { flash: { ok: false, text: fitText(`no store ${store}`) } })
      }
      const { flash, reopen } = yield* write(form, caller, store, file)
      yield* recordActions(caller, [{
        kind,
        outcome: flash.ok ? "done" : "refused",
        summary: `${kind === "mapping_add" ? "Mapping row added" : "Mapping row changed"}: ${
          flash.ok ? flash.text : `refused, ${flash.text}`
        }`,
        storeKey: store
      }])
      const carried = reopen === undefined ? { flash } : {
        flash,
        reopen: {
          prefill: fitCells(reopen.prefill as Record<string, string | undefined>) ?? {},
          ...(reopen.edit === undefined ? {} : { edit: reopen.edit }),
          ...(reopen.typed === undefined ? {} : { typed: fitCells(reopen.typed) })
        }
      }
      return yield* redirectWithFlash(pageAddress(store, reopen?.edit), carried)
    })
  )

export const mappingsRoutes = mappingsCsvRoutes.pipe(
  HttpRouter.get(
    "/console/mappings",
    getPage((caller) =>
      Effect.gen(function*() {
        const prefill = { sku: yield* query("sku"), variantId: yield* query("variant"), podVariantId: yield* query("pod") }
        const edit = Number(yield* query("edit"))
        const store = yield* query("store")
        const notice = yield* Effect.flatMap(MappingUploads, (u) =>
          Effect.flatMap(query("notice"), (id) => u.notice(id, caller.session.user)))
        const noticeShown = notice === undefined ? undefined : { ok: notice.ok, text: notice.text }
        return yield* withFlash(WriteFlash, (carried) =>
          Option.match(carried, {
            onNone: () =>
              mappingsPage(caller, { store, prefill, edit: Number.isInteger(edit) ? edit : undefined, notice: noticeShown }, undefined),
            onSome: ({ flash, reopen }) =>
              mappingsPage(
                caller,
                {
                  store,
                  prefill: reopen?.prefill ?? prefill,
                  edit: reopen?.edit ?? (Number.isInteger(edit) ? edit : undefined),
                  typed: reopen?.typed,
                  notice: noticeShown
                },
                flash
              )
          }))
      })
    )
  ),
  HttpRouter.post(
    "/console/mappings/add",
    writeAction("mapping_add", (form, caller, store, file) =>
      Effect.gen(function*() {
        const mappings = yield* MappingStore
        const cells = cellsOfForm(form)
        return yield* appendMappingRow(file, cells).pipe(
          Effect.tap(() => mappings.reload(store)),
          Effect.tap(({ line }) =>
            Effect.logInfo("console: mapping row added").pipe(
              Effect.annotateLogs({ user: caller.session.user, store, file, row: line.trim() })
            )
          ),
          Effect.map(({ backup, line }): WriteAnswer => ({
            flash: {
              ok: true,
              text: `added to ${file} (previous version in ${backup}); held orders of ${store} are re-planned: ${line.trim()}`
            }
          })),
          // Refused: the add form again, with what was typed.
          Effect.catchTag("MappingWriteError", (error) =>
            Effect.succeed({
              flash: refusedWrite(error),
              reopen: {
                prefill: {
                  sku: cells.store_sku,
                  variantId: cells.store_variant_id,
                  podVariantId: cells.pod_variant_id,
                  printFront: cells.print_front
                }
              }
            }))
        )
      }))
  ),
  HttpRouter.post(
    "/console/mappings/edit",
    writeAction("mapping_edit", (form, caller, store, file) =>
      Effect.gen(function*() {
        const mappings = yield* MappingStore
        const lineNumber = Number(param(form, "line"))
        if (!Number.isInteger(lineNumber) || lineNumber < 2) {
          return { flash: { ok: false, text: "no row line given: open the row's edit form from the page" } } satisfies WriteAnswer
        }
        const typed = cellsOfForm(form)
        return yield* replaceMappingRow(file, lineNumber, cellsOfForm(form, "old_"), typed).pipe(
          Effect.tap(() => mappings.reload(store)),
          Effect.tap(({ line }) =>
            Effect.logInfo("console: mapping row changed").pipe(
              Effect.annotateLogs({ user: caller.session.user, store, file, line: lineNumber, row: line.trim() })
            )
          ),
          Effect.map(({ backup, line }): WriteAnswer => ({
            flash: {
              ok: true,
              text:
                `line ${lineNumber} of ${file} changed (previous version in ${backup}); held orders of ${store} are re-planned: ${line.trim()}`
            }
          })),
          // Refused: the line's form again, with what was typed, checked against what the line holds now
          // (the file is read again: it may have changed meanwhile).
          Effect.catchTag("MappingWriteError", (error) =>
            mappings.reload(store).pipe(
              Effect.as({ flash: refusedWrite(error), reopen: { prefill: {}, edit: lineNumber, typed } } satisfies WriteAnswer)
            ))
        )
      }))
  )
)
