/**
 * WooCommerce's driver of the shared overlap walk (OverlapWalk.ts; see WooCursor.ts for why it
 * neither skips nor repeats): pages of orders by `modified` between bounds, each row completed
 * (refund details) before it is normalized. The walk's upper bound is frozen from the Clock when a
 * new walk starts.
 */
import { Effect, Either } from "effect"
import { identityFields, readOrderVersion, unreadableVersion } from "../OverlapWalk.js"
import type { PullSettings, ReadVersion, WalkDriver } from "../OverlapWalk.js"
import type { StoreError } from "../StoreErrors.js"
import { afterPage, pageQuery, startWalk, type WalkPosition } from "./WooCursor.js"
import { gmtTimestamp, normalizeWooOrder } from "./WooNormalize.js"
import type { OrdersPage, WooOrderReader } from "./WooOrders.js"

/** Best-effort identity of a row, so a row we could not read is reported once per version. */
const identityOf = identityFields("id", "date_modified_gmt", gmtTimestamp)

const readRow = (settings: PullSettings, reader: WooOrderReader, row: unknown): Effect.Effect<ReadVersion, StoreError> =>
  Effect.map(reader.complete(row), (result) => {
    if (Either.isLeft(result)) return unreadableVersion(identityOf(row), row, result.left)
    return Either.match(normalizeWooOrder(settings.storeKey, result.right.order, result.right.raw), {
      onLeft: (problem) => unreadableVersion(identityOf(row), result.right.raw, problem),
      onRight: readOrderVersion
    })
  })

export const wooWalk = (settings: PullSettings, reader: WooOrderReader): WalkDriver<WalkPosition, unknown, OrdersPage> => ({
  start: (cursor, since, now) => startWalk(cursor, since, settings.overlapSeconds, now),
  list: (position) =>
    Effect.map(reader.page(pageQuery(position), settings.pageSize), (listed) => ({ position, items: listed.rows, facts: listed })),
  identify: identityOf,
  read: (row) => readRow(settings, reader, row),
  advance: (position, { facts, handedOut, updatedAts }) =>
    afterPage(
      position,
      {
        modified: updatedAts,
        handedOut,
        rowCount: facts.rows.length,
        pageSize: settings.pageSize,
        total: facts.total,
        totalPages: facts.totalPages
      },
      settings.overlapSeconds
    )
})
