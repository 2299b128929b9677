/** What the two-replica pacing tests of the store connectors share. */
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"

/**
 * Every replica reads the order `id` `reads` times at once (`concurrency` at a time within a replica),
 * each as fast as its own pacing lets it; every read finds the order.
 */
export const readTogether = (replicas: ReadonlyArray<StoreConnector>, id: string, reads: number, concurrency: number) =>
  Effect.forEach(
    replicas,
    (connector) => Effect.forEach(Array.from({ length: reads }), () => connector.getOrder(id), { concurrency }),
    { concurrency: "unbounded" }
  ).pipe(Effect.tap((all) => expect(all.flat().every(Option.isSome)).toBe(true)))
