import { randomUUID } from "node:crypto"
import { Clock, Effect, Ref } from "effect"

/**
 * What a console POST leaves for the page it redirects to (a POST answers 303 to a GET, so a reload
 * never sends it again): an uploaded mapping file waiting to be applied, or what a write did. Kept
 * in memory for an hour, a few per daemon, and only for the person who made them.
 */

export interface PendingUpload {
  readonly _tag: "Upload"
  readonly user: string
  readonly storeKey: string
  readonly file: string
  /** The file's text the upload was compared with: applying it over another text is refused. */
  readonly before: string
  readonly text: string
  /** The name the upload came with (or "pasted text"). */
  readonly name: string
}

export interface Notice {
  readonly _tag: "Notice"
  readonly user: string
  readonly ok: boolean
  readonly text: string
}

type Entry = (PendingUpload | Notice) & { readonly at: number }

const KEEP_MS = 60 * 60_000
const MAX_ENTRIES = 50

export class MappingUploads extends Effect.Service<MappingUploads>()("podsync/MappingUploads", {
  effect: Effect.gen(function*() {
    const entries = yield* Ref.make(new Map<string, Entry>())
    const put = (entry: PendingUpload | Notice) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const id = randomUUID()
        yield* Ref.update(entries, (all) => {
          const kept = [...all].filter(([, e]) => now - e.at < KEEP_MS).slice(-(MAX_ENTRIES - 1))
          return new Map([...kept, [id, { ...entry, at: now }]])
        })
        return id
      })
    const get = (id: string | undefined, user: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const entry = id === undefined ? undefined : (yield* Ref.get(entries)).get(id)
        return entry !== undefined && entry.user === user && now - entry.at < KEEP_MS ? entry : undefined
      })
    const upload = (id: string | undefined, user: string) => Effect.map(get(id, user), (e) => (e?._tag === "Upload" ? e : undefined))
    const notice = (id: string | undefined, user: string) => Effect.map(get(id, user), (e) => (e?._tag === "Notice" ? e : undefined))
    const drop = (id: string) => Ref.update(entries, (all) => new Map([...all].filter(([key]) => key !== id)))
    return { put, upload, notice, drop }
  })
}) {}
