/**
 * Where `podsync db move` reads and writes: the configured database (the source), and `--to`
 * (`postgres://…`, `embedded` or `embedded:DIR`). A database URL is shown without its password.
 * Pure.
 */
import * as path from "node:path"
import { Either, Redacted } from "effect"
import type { AppConfig } from "../config/AppConfig.js"

export type DatabasePlace =
  | { readonly _tag: "postgres"; readonly url: Redacted.Redacted<string>; readonly shown: string }
  | { readonly _tag: "embedded"; readonly dataDir: string }

const PASSWORD_PARAMS = ["password", "sslpassword", "sslkey"]

/** A PostgreSQL URL as it may be printed: the password (in the address or a parameter) replaced by `***`. */
export const shownDatabaseUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    for (const name of PASSWORD_PARAMS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***")
    const user = parsed.username === "" ? "" : `${parsed.username}${parsed.password === "" ? "" : ":***"}@`
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}${parsed.search}`
  } catch {
    return "(a PostgreSQL URL that cannot be read)"
  }
}

/** The configured database: the one podsync uses now. */
export const configuredPlace = (config: AppConfig): DatabasePlace =>
  config.database.url === undefined
    ? { _tag: "embedded", dataDir: config.dataDir }
    : { _tag: "postgres", url: config.database.url, shown: shownDatabaseUrl(Redacted.value(config.database.url)) }

/** `--to`: the failure is a usage mistake (said with the usage, exit 2), never echoing a password. */
export const parseMoveTarget = (to: string, config: AppConfig): Either.Either<DatabasePlace, string> => {
  if (to === "embedded") return Either.right({ _tag: "embedded", dataDir: config.dataDir })
  if (to.startsWith("embedded:")) {
    const dataDir = to.slice("embedded:".length).trim()
    return dataDir === ""
      ? Either.left("--to embedded:DIR needs a folder after the colon")
      : Either.right({ _tag: "embedded", dataDir })
  }
  if (/^postgres(ql)?:\/\//.test(to)) {
    const shown = shownDatabaseUrl(to)
    return URL.canParse(to)
      ? Either.right({ _tag: "postgres", url: Redacted.make(to), shown })
      : Either.left("--to: that PostgreSQL URL cannot be read (postgres://USER@HOST:PORT/DATABASE)")
  }
  return Either.left(`--to expects postgres://USER@HOST:PORT/DATABASE, embedded or embedded:DIR; got "${shownTarget(to)}"`)
}

// Something that is not a URL we know may still hold a secret after a colon: show only its start.
const shownTarget = (to: string) => to.includes("@") || to.includes(":") ? `${to.split(":")[0] ?? ""}:…` : to

/** The same database: the move would read and write one place. */
export const samePlace = (a: DatabasePlace, b: DatabasePlace): boolean =>
  a._tag === "embedded" && b._tag === "embedded"
    ? path.resolve(a.dataDir) === path.resolve(b.dataDir)
    : a._tag === "postgres" && b._tag === "postgres"
    ? sameServerDatabase(Redacted.value(a.url), Redacted.value(b.url))
    : false

// Host, port, database and the options (a search_path) decide which tables a URL reaches; the user and password do not.
const sameServerDatabase = (a: string, b: string) => {
  const key = (url: string) => {
    const u = new URL(url)
    return `${u.hostname}:${u.port || "5432"}${u.pathname}?${u.searchParams.get("options") ?? ""}`
  }
  return key(a) === key(b)
}

/** The place in a seller's words: `the embedded database in ./data`, `PostgreSQL at postgres://podsync:***@db/podsync`. */
export const describePlace = (place: DatabasePlace): string =>
  place._tag === "embedded" ? `the embedded database in ${place.dataDir}` : `PostgreSQL at ${place.shown}`

/** `describePlace` to start a sentence with. */
export const describePlaceFirst = (place: DatabasePlace): string => {
  const said = describePlace(place)
  return said.charAt(0).toUpperCase() + said.slice(1)
}

/** The short name of its kind, a column heading. */
export const kindOf = (place: DatabasePlace): string => place._tag === "embedded" ? "embedded" : "PostgreSQL"
