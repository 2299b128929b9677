import { Context, Effect, Layer, Option } from "effect"

/**
 * Whether this daemon runs dry (`pipeline.dryRun`, `podsync start --dry-run`): everything runs on
 * live orders, reads included, but nothing that changes anything at the POD service or a store is
 * sent (no draft, no draft update, no webhook subscription, no store mark or tracking push): what
 * would be sent is recorded in the order's story instead, once. Absent means not dry.
 */
export class DryRun extends Context.Tag("podsync/DryRun")<DryRun, { readonly on: boolean }>() {
  static readonly layer = (on: boolean) => Layer.succeed(DryRun, { on })
}

/** Whether the running composition is a dry run (false when nobody said). */
export const isDryRun: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(DryRun), Option.exists((d) => d.on))

/** What every page and answer says while the daemon runs dry. */
export const DRY_RUN_BANNER = "Dry run: nothing is sent"
