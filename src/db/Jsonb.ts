import { type RawBuilder, sql } from "kysely"

/**
 * A value for a jsonb column, sent as JSON text and cast. node-pg would send
 * a JavaScript array as a PostgreSQL array literal (and PGlite as JSON), so
 * every JSON write goes through here to mean the same on both.
 */
export const jsonb = <T>(value: T): RawBuilder<T> => sql<T>`${JSON.stringify(value)}::jsonb`

/** Like `jsonb`, but null for undefined/null. */
export const jsonbOrNull = <T>(value: T | undefined | null): RawBuilder<T> | null =>
  value === undefined || value === null ? null : jsonb(value)
