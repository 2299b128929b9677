import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Context, Effect, Layer } from "effect"

/**
 * This process's name among the replicas sharing a database: the owner of the orders it claims,
 * the schedule ticks it runs and the rate-budget slots it holds. Unique per running process
 * (host, pid and a random part, since pids repeat across containers); never secret.
 */
export const newReplicaId = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`

/** `newReplicaId` as an effect, for layers that name their process once. */
export const replicaIdentity: Effect.Effect<string> = Effect.sync(newReplicaId)

/** The replica identity every loop of one daemon uses (given, or made once when the layer is built). */
export class Replica extends Context.Tag("podsync/Replica")<Replica, string>() {
  static readonly layer = (owner?: string): Layer.Layer<Replica> =>
    Layer.effect(Replica, owner !== undefined ? Effect.succeed(owner) : replicaIdentity)
}
