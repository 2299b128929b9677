/**
 * The POD draft's `reference_id` (ARCHITECTURE.md "Idempotency", a contract):
 * `<store key>:<store order id>`, at most 255 characters, the POD service's
 * limit. Store keys are `[a-z0-9-]+` (AppConfig), so the first `:` ends the
 * key; a store order id may hold `:` itself.
 */
import { createHash } from "node:crypto"
import { Data, Either, Option, Schema } from "effect"

export const MAX_LENGTH = 255

/** Characters as the POD service and PostgreSQL's varchar(255) count them: code points, not UTF-16 units. */
export const lengthOf = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

const FORM = /^[a-z0-9-]+:[\s\S]+$/

export const ReferenceId = Schema.String.pipe(
  Schema.filter((text) => FORM.test(text) || "expected <store key>:<store order id>, the store key of [a-z0-9-]+"),
  Schema.filter((text) =>
    lengthOf(text) <= MAX_LENGTH || `expected at most ${MAX_LENGTH} characters (the POD service's limit), got ${lengthOf(text)}`
  ),
  Schema.brand("ReferenceId"),
  Schema.annotations({ identifier: "ReferenceId", description: "a POD draft's reference_id: <store key>:<store order id>" })
)
export type ReferenceId = typeof ReferenceId.Type

export interface ReferenceParts {
  readonly storeKey: string
  readonly storeOrderId: string
}

/** Why a store order has no reference id: too long for the service, or not of the form (an empty order id). */
export class ReferenceIdError extends Data.TaggedError("ReferenceIdError")<{
  readonly storeKey: string
  readonly storeOrderId: string
  readonly problem: "too_long" | "malformed"
}> {
  get length(): number {
    return lengthOf(this.storeKey) + 1 + lengthOf(this.storeOrderId)
  }
  override get message(): string {
    return this.problem === "too_long"
      ? `the reference id "${this.storeKey}:…" would be ${this.length} characters; the POD service takes at most ${MAX_LENGTH}`
      : `"${this.storeKey}:${this.storeOrderId}" is not <store key>:<store order id>`
  }
}

const decode = Schema.decodeEither(ReferenceId)
const KEY = /^[a-z0-9-]+$/

export const make = (storeKey: string, storeOrderId: string): Either.Either<ReferenceId, ReferenceIdError> =>
  // The key is checked alone too: one holding a `:` would parse back as another key.
  KEY.test(storeKey)
    ? Either.mapLeft(decode(`${storeKey}:${storeOrderId}`), () =>
      new ReferenceIdError({ storeKey, storeOrderId, problem: storeOrderId !== "" ? "too_long" : "malformed" }))
    : Either.left(new ReferenceIdError({ storeKey, storeOrderId, problem: "malformed" }))

/** The store key and store order id of a reference id; none when the text is not one of ours in form. */
export const parse = (text: string): Option.Option<ReferenceParts> =>
  Option.map(Either.getRight(decode(text)), (id) => {
    const at = id.indexOf(":")
    return { storeKey: id.slice(0, at), storeOrderId: id.slice(at + 1) }
  })

const HASH_LENGTH = 22

/**
 * What podsync knows a store order by (store_orders.reference_id, varchar(255)
 * and unique; `podsync explain`; reports): its reference id, or, when that
 * would be too long, a stand-in that fits, the id's start and a hash of all of
 * it. The order is then stored and held (`reference_too_long`) instead of
 * failing its whole page at every pull; a stand-in is never sent to the service.
 */
export const keyOf = (storeKey: string, storeOrderId: string): string => {
  const text = `${storeKey}:${storeOrderId}`
  if (lengthOf(text) <= MAX_LENGTH) return text
  const hash = createHash("sha256").update(storeOrderId).digest("base64url").slice(0, HASH_LENGTH)
  const room = Math.max(0, MAX_LENGTH - lengthOf(storeKey) - 2 - HASH_LENGTH)
  return `${storeKey}:${[...storeOrderId].slice(0, room).join("")}…${hash}`
}
