import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import { Effect, Option, Stream } from "effect"
import { errorsOf, formatIssue } from "../mapping/MappingCsv.js"
import { diffMappingTables } from "../mapping/MappingDiff.js"
import { mergeSuggestions } from "../mapping/MappingMerge.js"
import { describeCatalogProblem, lintAgainstCatalog } from "../pipeline/CatalogCheck.js"
import { rewriteMappingFile } from "../pipeline/MappingEdit.js"
import { parseMappingText } from "../pipeline/MappingFile.js"
import { MappingStore } from "../pipeline/MappingStore.js"
import { cachedCatalog, suggestDraftFrom } from "../pipeline/SuggestDraft.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { admit, type Caller, htmlResponse, SECURITY_HEADERS } from "./ConsoleGuard.js"
import { chrome, getPage, param, postAction, query, recordActions } from "./ConsoleRequest.js"
import { page } from "./Html.js"
import { MappingUploads } from "./MappingUploads.js"
import { MAX_UPLOAD_BYTES, uploadContent } from "./MappingsCsvView.js"

/**
 * The mapping file in and out of the console (issue 34): download it; upload a CSV, shown against
 * the file in force with what `podsync check` says of each line, then written over it atomically
 * (or refused); add what `podsync mappings suggest` suggests. Every POST answers 303 to a page, so a
 * reload never sends it again; every write reloads the stores that use the file, which re-plans
 * their held orders.
 */

const readText = (file: string) =>
  Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
    Effect.catchAll((error) => ((error.error as { code?: string }).code === "ENOENT" ? Effect.succeed("") : Effect.fail(error)))
  )

const seeOther = (url: string) => HttpServerResponse.redirect(url, { status: 303, headers: SECURITY_HEADERS })

const mappingsUrl = (store: string, notice?: string) =>
  `/console/mappings?store=${encodeURIComponent(store)}${notice === undefined ? "" : `&notice=${notice}`}`

/** What a write did, for the page the POST redirects to. */
const noticeAndBack = (caller: Caller, store: string, ok: boolean, text: string, anchor = "file") =>
  Effect.map(
    Effect.flatMap(MappingUploads, (u) => u.put({ _tag: "Notice", user: caller.session.user, ok, text })),
    (id) => seeOther(`${mappingsUrl(store, id)}#${anchor}`)
  )

/** What a write of the whole file did: recorded for the audit page, then the page to go back to. */
const recordedNotice = (kind: "mapping_upload" | "mapping_merge", caller: Caller, store: string, ok: boolean, text: string) =>
  Effect.zipRight(
    recordActions(caller, [{
      kind,
      outcome: ok ? "done" : "refused",
      summary: `${kind === "mapping_upload" ? "Mapping file uploaded" : "Suggested mapping rows added"}: ${ok ? text : `refused, ${text}`}`,
      storeKey: store
    }]),
    noticeAndBack(caller, store, ok, text)
  )

/** Every store whose mapping file `file` is: a shared file is reloaded for each. */
const reloadFile = (file: string) =>
  Effect.gen(function*() {
    const mappings = yield* MappingStore
    const stores = mappings.storeKeys.filter((key) => mappings.fileOf(key) === file)
    yield* Effect.forEach(stores, (key) => mappings.reload(key), { discard: true })
    return stores
  })

/** The same check as `podsync check` and the loader, on the uploaded text: row problems, then the rows against the cached catalog. */
export const checkUpload = (name: string, text: string) =>
  Effect.gen(function*() {
    const parsed = parseMappingText(name, text)
    const lookup = yield* (yield* CatalogRepo).lookup
    const catalog = lookup === undefined ? [] : lintAgainstCatalog(name, parsed.table, lookup)
    return {
      parsed,
      errors: [
        ...errorsOf(parsed.issues).map((i) => formatIssue(name, i)),
        ...catalog.filter((p) => p.severity === "error").map(describeCatalogProblem)
      ],
      warnings: [
        ...parsed.issues.filter((i) => i.warning === true).map((i) => formatIssue(name, i)),
        ...catalog.filter((p) => p.severity === "warning").map(describeCatalogProblem)
      ]
    }
  })

const MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 64 * 1024

interface FormPart {
  readonly key: string
  readonly value: string
  /** A file part's file name; undefined for a field. */
  readonly name: string | undefined
}

/** A multipart form: its fields, and the text of its `file` part (an empty one when no file was chosen). */
const multipartForm = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const parts = yield* request.multipartStream.pipe(
    Stream.mapEffect((part): Effect.Effect<FormPart, Multipart.MultipartError> =>
      Multipart.isField(part)
        ? Effect.succeed({ key: part.key, value: part.value, name: undefined })
        : part._tag === "File"
        ? Effect.map(part.contentEffect, (bytes) => ({ key: part.key, value: new TextDecoder().decode(bytes), name: part.name }))
        : Effect.succeed({ key: "", value: "", name: undefined })
    ),
    Stream.runCollect,
    Multipart.withLimits({
      maxParts: Option.some(8),
      maxFieldSize: MAX_UPLOAD_BYTES,
      maxFileSize: Option.some(MAX_UPLOAD_BYTES),
      maxTotalSize: Option.some(MAX_BODY_BYTES)
    })
  )
  return [...parts]
})

const tooLarge = htmlResponse(`the upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB: split the file`, 413)

/** A limit reached while a file part streams comes back as an internal error whose cause says so. */
const reachedLimit = (error: Multipart.MultipartError) =>
  /TooLarge/.test(error.reason) || (error.cause as { readonly _tag?: unknown } | undefined)?._tag === "ReachedLimit"

const upload = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return tooLarge
  const read = yield* Effect.either(multipartForm)
  if (read._tag === "Left") {
    return reachedLimit(read.left) ? tooLarge : htmlResponse(`the upload could not be read (${read.left.reason})`, 400)
  }
  const parts = read.right
  const form = parts.filter((p) => p.name === undefined).map((p) => [p.key, p.value] as const)
  const admission = yield* admit({ post: true, form })
  if (admission._tag === "Turned") return admission.response
  const caller = admission.caller
  const store = param(form, "store") ?? ""
  const mappings = yield* MappingStore
  const file = mappings.fileOf(store)
  if (file === undefined) return htmlResponse(`no store ${store}`, 404)
  const chosen = parts.find((p) => p.key === "file" && p.name !== undefined && p.value.trim() !== "")
  const pasted = param(form, "csv") ?? ""
  const text = chosen?.value ?? pasted
  if (text.trim() === "") return yield* noticeAndBack(caller, store, false, "nothing was uploaded: choose a CSV file or paste its text")
  const id = yield* Effect.flatMap(MappingUploads, (u) =>
    Effect.flatMap(readText(file), (before) =>
      u.put({
        _tag: "Upload",
        user: caller.session.user,
        storeKey: store,
        file,
        before,
        text: text.replace(/^\uFEFF/, ""),
        name: chosen?.name || "pasted text"
      })))
  return seeOther(`/console/mappings/upload?id=${id}`)
})

const uploadPage = getPage((caller) =>
  Effect.gen(function*() {
    const pending = yield* Effect.flatMap(MappingUploads, (u) => Effect.flatMap(query("id"), (id) => u.upload(id, caller.session.user)))
    if (pending === undefined) {
      return htmlResponse("this upload is no longer here (an hour passed, or it was applied): upload it again", 404)
    }
    const mappings = yield* MappingStore
    const checked = yield* checkUpload(path.basename(pending.name), pending.text)
    const inForce = yield* mappings.tableFor(pending.storeKey)
    const current = yield* readText(pending.file)
    const content = uploadContent({
      id: yield* Effect.map(query("id"), (id) => id ?? ""),
      storeKey: pending.storeKey,
      file: pending.file,
      name: pending.name,
      csrfToken: caller.csrfToken,
      diff: diffMappingTables(inForce, checked.parsed.table),
      errors: checked.errors,
      warnings: checked.warnings,
      stale: current !== pending.before
    })
    return htmlResponse(page(yield* chrome(caller, "Upload a mapping file", "mappings"), content))
  })
)

const apply = postAction((caller, form) =>
  Effect.gen(function*() {
    const uploads = yield* MappingUploads
    const id = param(form, "id")
    const pending = yield* uploads.upload(id, caller.session.user)
    if (pending === undefined || id === undefined) {
      return htmlResponse("this upload is no longer here (an hour passed, or it was applied): upload it again", 404)
    }
    const checked = yield* checkUpload(path.basename(pending.name), pending.text)
    if (checked.errors.length > 0) return seeOther(`/console/mappings/upload?id=${id}`)
    const diff = diffMappingTables(yield* (yield* MappingStore).tableFor(pending.storeKey), checked.parsed.table)
    return yield* rewriteMappingFile(pending.file, pending.before, pending.text, "upload it").pipe(
      Effect.flatMap((backup) =>
        Effect.gen(function*() {
          yield* uploads.drop(id)
          const stores = yield* reloadFile(pending.file)
          yield* Effect.logInfo("console: mapping file uploaded").pipe(
            Effect.annotateLogs({ user: caller.session.user, file: pending.file, stores: stores.join(",") })
          )
          return yield* recordedNotice(
            "mapping_upload",
            caller,
            pending.storeKey,
            true,
            `${pending.file} written from ${pending.name} (previous version in ${backup}): ${diff.added.length} row(s) added, ${diff.removed.length} removed, ${diff.changed.length} changed; held orders of ${
              stores.join(", ")
            } are re-planned`
          )
        })
      ),
      Effect.catchTag("MappingWriteError", (error) => recordedNotice("mapping_upload", caller, pending.storeKey, false, error.message))
    )
  })
)

const merge = postAction((caller, form) =>
  Effect.gen(function*() {
    const store = param(form, "store") ?? ""
    const file = (yield* MappingStore).fileOf(store)
    if (file === undefined) return htmlResponse(`no store ${store}`, 404)
    const before = yield* readText(file)
    const draft = yield* suggestDraftFrom(store, file, cachedCatalog)
    const merged = mergeSuggestions(before, draft.additions)
    if (merged.text === before) {
      return yield* recordedNotice("mapping_merge", caller, store, true, `nothing to add: ${file} maps every line the draft has`)
    }
    return yield* rewriteMappingFile(file, before, merged.text, "add the suggestions").pipe(
      Effect.flatMap((backup) =>
        Effect.gen(function*() {
          const stores = yield* reloadFile(file)
          yield* Effect.logInfo("console: suggested mapping rows added").pipe(
            Effect.annotateLogs({ user: caller.session.user, file, added: merged.added, commented: merged.commented })
          )
          return yield* recordedNotice(
            "mapping_merge",
            caller,
            store,
            true,
            `added ${merged.added} row(s) to ${file}, and ${merged.commented} row(s) to complete as comments (previous version in ${backup}); held orders of ${
              stores.join(", ")
            } are re-planned`
          )
        })
      ),
      Effect.catchTag("MappingWriteError", (error) => recordedNotice("mapping_merge", caller, store, false, error.message))
    )
  })
)

const csvDownload = (text: string, name: string) =>
  HttpServerResponse.text(text, {
    contentType: "text/csv; charset=utf-8",
    headers: { ...SECURITY_HEADERS, "content-disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}"` }
  })

const storeFile = Effect.gen(function*() {
  const store = (yield* query("store")) ?? ""
  return { store, file: (yield* MappingStore).fileOf(store) }
})

export const mappingsCsvRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/console/mappings/file",
    getPage(() =>
      Effect.gen(function*() {
        const { file, store } = yield* storeFile
        if (file === undefined) return htmlResponse(`no store ${store}`, 404)
        return csvDownload(yield* readText(file), path.basename(file))
      })
    )
  ),
  HttpRouter.get(
    "/console/mappings/suggest.csv",
    getPage(() =>
      Effect.gen(function*() {
        const { file, store } = yield* storeFile
        if (file === undefined) return htmlResponse(`no store ${store}`, 404)
        const draft = yield* suggestDraftFrom(store, file, cachedCatalog)
        return csvDownload(draft.csv, `${store}-draft.csv`)
      })
    )
  ),
  HttpRouter.post("/console/mappings/upload", upload),
  HttpRouter.get("/console/mappings/upload", uploadPage),
  HttpRouter.post("/console/mappings/upload/apply", apply),
  HttpRouter.post("/console/mappings/merge", merge)
)
