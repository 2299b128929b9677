import { Effect } from "effect"
import { sql } from "kysely"
import type { DbShape } from "../db/Db.js"

/** A fulfilled order due a look for a later box. */
export interface PackageLook {
  readonly id: number
  readonly referenceId: string
  readonly podOrderId: string
  readonly followedUntil: Date
}

/**
 * When fulfilled orders are read again for a box the POD service ships later (reconciliation's look
 * when no webhook said so): each is followed for a while after it was fulfilled, read at a fixed
 * spacing. Part of OrdersRepo.
 */
export const makePackageLooks = (db: DbShape) => {
  /**
   * Orders fulfilled within `forMs` of `now` and not followed yet get their first look `everyMs`
   * after they were fulfilled (their last change), and are followed until `forMs` after it.
   */
  const startFollowing = (now: Date, everyMs: number, forMs: number) =>
    db.use((k) =>
      k.updateTable("store_orders").set({
        packages_look_at: sql`updated_at + make_interval(secs => ${everyMs / 1000})`,
        packages_followed_until: sql`updated_at + make_interval(secs => ${forMs / 1000})`
      }).where("state", "=", "fulfilled").where("packages_followed_until", "is", null).where("pod_order_id", "is not", null)
        .where("updated_at", ">", new Date(now.getTime() - forMs)).executeTakeFirst()
    ).pipe(Effect.map((result) => Number(result.numUpdatedRows)))

  /** The fulfilled orders whose look is due, soonest first. */
  const due = (now: Date, limit: number) =>
    db.use((k) =>
      k.selectFrom("store_orders").select(["id", "reference_id", "pod_order_id", "packages_followed_until"])
        .where("packages_look_at", "<=", now).where("state", "=", "fulfilled").where("pod_order_id", "is not", null)
        .orderBy("packages_look_at").limit(limit).execute()
    ).pipe(Effect.map((rows) =>
      rows.map((r): PackageLook => ({
        id: r.id,
        referenceId: r.reference_id,
        podOrderId: r.pod_order_id ?? "",
        followedUntil: r.packages_followed_until ?? new Date(0)
      }))
    ))

  /** The next look of each order, or none (its window is over). */
  const lookNext = (looks: ReadonlyArray<{ readonly id: number; readonly at: Date | null }>) =>
    looks.length === 0 ? Effect.void : db.use((k) =>
      sql`update store_orders as o set packages_look_at = x.at
        from jsonb_to_recordset(${JSON.stringify(looks)}::jsonb) as x(id bigint, at timestamptz)
        where o.id = x.id`.execute(k)
    ).pipe(Effect.asVoid)

  return { startFollowing, due, lookNext }
}
