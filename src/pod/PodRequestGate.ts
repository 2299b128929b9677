/**
 * The one hook every POD request goes through: where the shared rate budget
 * plugs in (src/budget/ implements it; until then `PodRequestGate.passThrough`).
 *
 * Contract, per request:
 *
 * 1. The client calls `around(info, send)` once. The gate decides when `send`
 *    runs: it may wait (for a slot, for a 429 block to pass, for its lane's
 *    turn) but must run `send` at most once, and return its result unchanged.
 *    Everything before `send` starts is "not sent"; the slot is taken when
 *    `send` starts.
 * 2. Inside `send`, before it completes, the client calls `report(info, outcome)`
 *    exactly once: `Answered` with the HTTP status (and, for a 429, the
 *    Retry-After it announced, already parsed), or `NoAnswer` (timeout or a
 *    connection failure). So by the time `send` completes the gate knows
 *    whether it must pause the credential; a slot can be released
 *    `windowSeconds` after `send` completes (the answer's arrival).
 * 3. Local validation failures never reach the gate (nothing is sent).
 *
 * `lane` is the priority (ARCHITECTURE.md, rate budget 3): "urgent" for
 * webhook follow-ups and tracking reconciliation, "normal" for draft
 * creation, "background" for catalog refresh and reports. `storeKey` lets the
 * gate serve stores round-robin within a lane.
 */
import { Context, type Duration, Effect, Layer } from "effect"
import type { PodLane } from "../domain/PodLane.js"

export type { PodLane }

export interface PodRequestInfo {
  /** Client operation name, e.g. "drafts.create". */
  readonly operation: string
  readonly method: string
  /** Path without base URL or query. */
  readonly path: string
  readonly lane: PodLane
  readonly storeKey?: string
}

export type PodRequestOutcome =
  | {
    readonly _tag: "Answered"
    readonly status: number
    /** Parsed Retry-After of a 429 (seconds or HTTP date), when the service sent one. */
    readonly retryAfter?: Duration.Duration
  }
  | {
    readonly _tag: "NoAnswer"
    readonly reason: "connect" | "timeout" | "reset" | "other"
    /** Why, in words a seller can act on, when the connection itself failed ("connection refused at http://…"). */
    readonly detail?: string
  }

export interface PodRequestGateShape {
  readonly around: <A, E, R>(info: PodRequestInfo, send: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly report: (info: PodRequestInfo, outcome: PodRequestOutcome) => Effect.Effect<void>
}

export class PodRequestGate extends Context.Tag("podsync/PodRequestGate")<PodRequestGate, PodRequestGateShape>() {
  /** Sends at once and ignores outcomes: no budget. For tests of the client itself and one-off tools. */
  static readonly passThrough: Layer.Layer<PodRequestGate> = Layer.succeed(PodRequestGate, {
    around: (_info, send) => send,
    report: () => Effect.void
  })
}
