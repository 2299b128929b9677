// The real service is protobuf-based (Connect): its JSON leaves out every field
// that holds its zero value (0, "", false, an empty list, an unset message), and
// writes an enum as its name or, from some gateways, as its number. The
// simulator's views build whole records; this turns them into what the service
// actually sends. A Money of $0 becomes `{ currency_code }`, $0.50 becomes
// `{ currency_code, nanos }`.
import { ENUM_NUMBERS } from "./enums.js"
import { hashString } from "./random.js"

/** A JSON value as the simulator answers it. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json | undefined }

const isZero = (value: Json | undefined): boolean =>
  value === undefined || value === null || value === 0 || value === "" || value === false ||
  (Array.isArray(value) && value.length === 0)

/** Objects whose fields hold enum names as plain strings (the contract types them `string`): never numbers. */
const PLAIN_TEXT_FIELDS = new Set(["shipping_substitution"])

/** `value` with every zero-valued field left out, recursively; list elements are kept (with their own zeros left out). */
export const omitZeroValues = (value: Json, enumsAsNumbers = false): Json => {
  if (Array.isArray(value)) return value.map((item: Json) => omitZeroValues(item, enumsAsNumbers))
  if (typeof value === "string") return enumsAsNumbers ? (ENUM_NUMBERS.get(value) ?? value) : value
  if (value === null || typeof value !== "object") return value
  const out: Record<string, Json> = {}
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue
    const written = omitZeroValues(field, enumsAsNumbers && !PLAIN_TEXT_FIELDS.has(key))
    // An int64 zero written as text (`units: "0"`) is a zero too.
    if (isZero(written) || (key === "units" && written === "0")) continue
    out[key] = written
  }
  return out
}

/** Whether this record's enums travel as numbers under this seed (deterministic, about one record in four). */
export const enumsAsNumbersFor = (seed: number, key: string): boolean => ((hashString(`enum:${key}`) + seed) & 3) === 0

const recordKey = (record: Readonly<Record<string, Json | undefined>>): string | undefined => {
  for (const field of ["order_id", "variant_id", "product_id", "webhook_id"]) {
    const value = record[field]
    if (typeof value === "string") return value
  }
  return undefined
}

/**
 * A v3 answer with the enums of some records (`data`, or each item of a list)
 * written as numbers, as some of the service's answers come: which records is
 * a pure function of the seed and the record's id.
 */
export const withSomeEnumNumbers = (body: Json, seed: number): Json => {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body
  const envelope = body as Readonly<Record<string, Json | undefined>>
  const convert = (record: Json): Json => {
    if (record === null || typeof record !== "object" || Array.isArray(record)) return record
    const key = recordKey(record as Readonly<Record<string, Json | undefined>>)
    return key !== undefined && enumsAsNumbersFor(seed, key) ? omitZeroValues(record, true) : record
  }
  const data = envelope["data"]
  if (data === undefined) return body
  return { ...envelope, data: Array.isArray(data) ? data.map(convert) : convert(data) }
}
