/**
 * The incremental pull every platform shares, as a stream of pages: a walk
 * starts from the persisted cursor (`overlap` before the watermark), lists
 * page after page, hands out each order version (`<id>@<updatedAt>`) at most
 * once, and ends when the platform says the page was the last. A page is
 * fetched only when the consumer asks for it, so the consumer stores a page
 * and persists `page.cursor` before the next request leaves.
 *
 * What differs per platform (how a page is asked for and placed in the walk,
 * how an item is read) is a `WalkDriver`; the cursor modules beside each
 * driver explain why their walk neither skips nor repeats.
 */
import { Clock, Effect, Option, Stream } from "effect"
import { type NormalizedOrder, orderVersionKey } from "../domain/NormalizedOrder.js"
import type { StoreCursor } from "../domain/StoreTypes.js"
import type { PulledPage, PullOptions, UnreadableOrder } from "./StoreConnector.js"
import type { StoreError } from "./StoreErrors.js"

/** What every pull is configured with. */
export interface PullSettings {
  readonly storeKey: string
  readonly pageSize: number
  readonly overlapSeconds: number
}

/** An order version's identity, readable without decoding the item. */
export interface VersionIdentity {
  readonly id: string | undefined
  readonly updatedAt: string | undefined
}

/** One item of a page as read: its version (when known) and the order, or why it is unreadable. */
export interface ReadVersion {
  readonly updatedAt: string | undefined
  readonly key: string | undefined
  readonly order: NormalizedOrder | undefined
  readonly unreadable: UnreadableOrder | undefined
}

const keyOf = (identity: VersionIdentity): string | undefined =>
  identity.id !== undefined && identity.updatedAt !== undefined ? `${identity.id}@${identity.updatedAt}` : undefined

/** A normalized order, handed out under its version. */
export const readOrderVersion = (order: NormalizedOrder): ReadVersion => ({
  updatedAt: order.updatedAt,
  key: orderVersionKey(order),
  order,
  unreadable: undefined
})

/** An item that could not be read, reported once per version when its identity is known. */
export const unreadableVersion = (identity: VersionIdentity, raw: unknown, problem: string): ReadVersion => ({
  updatedAt: identity.updatedAt,
  key: keyOf(identity),
  order: undefined,
  unreadable: { storeOrderId: identity.id, raw, problem }
})

/** An item with nothing to hand out (deleted while it was read). */
export const nothingToHandOut: ReadVersion = { updatedAt: undefined, key: undefined, order: undefined, unreadable: undefined }

/**
 * Best-effort identity of a raw item from two of its fields, so that an item
 * that cannot be decoded is still reported once per version.
 */
export const identityFields =
  (idField: string, updatedAtField: string, timestamp: (text: string) => string | undefined) => (item: unknown): VersionIdentity => {
    if (typeof item !== "object" || item === null) return { id: undefined, updatedAt: undefined }
    const record = item as Record<string, unknown>
    const id = record[idField]
    const updatedAt = record[updatedAtField]
    return {
      id: typeof id === "string" || typeof id === "number" ? String(id) : undefined,
      updatedAt: typeof updatedAt === "string" ? timestamp(updatedAt) : undefined
    }
  }

/** A page as listed, placed in the walk. */
export interface ListedPage<P, Item, Facts> {
  /** Where the page was read from: a driver may have moved (re-read a shifted tie, restarted a forgotten cursor). */
  readonly position: P
  readonly items: ReadonlyArray<Item>
  /** What the driver needs to place the next page. */
  readonly facts: Facts
}

/** What the walk tells the driver about a page once its items are read. */
export interface PageOutcome<Facts> {
  readonly facts: Facts
  /** `updatedAt` of every item whose version is known, handed out or not. */
  readonly updatedAts: ReadonlyArray<string>
  /** Versions handed out from this page. */
  readonly handedOut: ReadonlyArray<string>
  /** The Clock when the page was read. */
  readonly nowMillis: number
}

export interface AfterPage<P> {
  readonly position: P
  /** What the caller persists once the page is stored. */
  readonly cursor: StoreCursor
  readonly done: boolean
}

/** What a platform supplies to walk its orders. */
export interface WalkDriver<P extends { readonly seen: ReadonlySet<string> }, Item, Facts> {
  /** Where a pull from `cursor` starts (inside an unfinished walk, or a new one), given the Clock. */
  readonly start: (cursor: StoreCursor | null, since: string | undefined, nowMillis: number) => P
  readonly list: (position: P) => Effect.Effect<ListedPage<P, Item, Facts>, StoreError>
  /**
   * The item's version without decoding it, when cheap: a version handed out
   * before (the overlap re-read) is then neither decoded, completed nor
   * normalized again.
   */
  readonly identify?: (item: Item) => VersionIdentity
  readonly read: (item: Item) => Effect.Effect<ReadVersion, StoreError>
  readonly advance: (position: P, outcome: PageOutcome<Facts>) => AfterPage<P>
}

const handOut = (seen: ReadonlySet<string>, read: ReadonlyArray<ReadVersion>) => {
  const handedOut = new Set<string>()
  const orders: Array<NormalizedOrder> = []
  const unreadable: Array<UnreadableOrder> = []
  for (const item of read) {
    if (item.key !== undefined && (seen.has(item.key) || handedOut.has(item.key))) continue
    if (item.key !== undefined) handedOut.add(item.key)
    if (item.order !== undefined) orders.push(item.order)
    if (item.unreadable !== undefined) unreadable.push(item.unreadable)
  }
  return { orders, unreadable, handedOut: [...handedOut] }
}

const walkPage = <P extends { readonly seen: ReadonlySet<string> }, Item, Facts>(
  driver: WalkDriver<P, Item, Facts>,
  start: P
): Effect.Effect<{ readonly page: PulledPage; readonly next: P }, StoreError> =>
  Effect.gen(function*() {
    const { position, items, facts } = yield* driver.list(start)
    const read = yield* Effect.forEach(items, (item) => {
      const identity = driver.identify?.(item)
      const key = identity === undefined ? undefined : keyOf(identity)
      return key !== undefined && position.seen.has(key)
        ? Effect.succeed<ReadVersion>({ updatedAt: identity?.updatedAt, key, order: undefined, unreadable: undefined })
        : driver.read(item)
    })
    const { orders, unreadable, handedOut } = handOut(position.seen, read)
    const updatedAts = read.flatMap((item) => (item.updatedAt === undefined ? [] : [item.updatedAt]))
    const nowMillis = yield* Clock.currentTimeMillis
    const after = driver.advance(position, { facts, updatedAts, handedOut, nowMillis })
    return { page: { orders, unreadable, cursor: after.cursor, done: after.done }, next: after.position }
  })

/** The walk from `cursor` as a stream of pages, each fetched when the previous one has been consumed. */
export const walkOrders = <P extends { readonly seen: ReadonlySet<string> }, Item, Facts>(
  driver: WalkDriver<P, Item, Facts>,
  cursor: StoreCursor | null,
  options?: PullOptions
): Stream.Stream<PulledPage, StoreError> =>
  Stream.unwrap(
    Effect.map(Clock.currentTimeMillis, (now) =>
      Stream.unfoldEffect(Option.some(driver.start(cursor, options?.since, now)), (state: Option.Option<P>) =>
        Option.match(state, {
          onNone: () =>
            Effect.succeedNone,
          onSome: (position) =>
            Effect.map(walkPage(driver, position), ({ page, next }) =>
              Option.some([page, page.done ? Option.none<P>() : Option.some(next)] as const))
        })))
  )
