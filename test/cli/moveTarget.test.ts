// Where `podsync db move` reads and writes, as the seller names it: `--to` parsed, a database URL
// shown without its password (in the address or a parameter), and a move onto itself recognised.
import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { configuredPlace, describePlace, parseMoveTarget, samePlace, shownDatabaseUrl } from "../../src/cli/MoveTarget.js"
import type { AppConfig } from "../../src/config/AppConfig.js"

const config = (url?: string) =>
  ({ dataDir: "./data", database: url === undefined ? {} : { url: Redacted.make(url) } }) as unknown as AppConfig

describe("podsync db move's places", () => {
  it("shows a URL without its password", () => {
    expect(shownDatabaseUrl("postgres://podsync:s3cr%40t@db.example.com:5432/podsync")).toBe(
      "postgres://podsync:***@db.example.com:5432/podsync"
    )
    expect(shownDatabaseUrl("postgresql://podsync@db/podsync?sslmode=require&password=hunter2")).toBe(
      "postgresql://podsync@db/podsync?sslmode=require&password=***"
    )
    expect(shownDatabaseUrl("postgres://db/podsync")).toBe("postgres://db/podsync")
  })

  it("reads --to as PostgreSQL, the configured data folder or another one, and says a mistake without the secret", () => {
    const to = parseMoveTarget("postgres://podsync:hunter2@db:5432/podsync", config())
    expect(Either.isRight(to) && to.right._tag === "postgres" && to.right.shown).toBe("postgres://podsync:***@db:5432/podsync")
    expect(parseMoveTarget("embedded", config("postgres://db/podsync"))).toEqual(Either.right({ _tag: "embedded", dataDir: "./data" }))
    expect(parseMoveTarget("embedded:/var/lib/podsync/data", config())).toEqual(
      Either.right({ _tag: "embedded", dataDir: "/var/lib/podsync/data" })
    )
    for (const wrong of ["mysql://podsync:hunter2@db/podsync", "embedded:", "podsync:hunter2@db"]) {
      const said = parseMoveTarget(wrong, config())
      expect(Either.isLeft(said), wrong).toBe(true)
      expect(Either.isLeft(said) ? said.left : "", wrong).not.toContain("hunter2")
    }
  })

  it("knows a move onto the database in use, whoever connects to it", () => {
    const from = configuredPlace(config("postgres://a:one@db:5432/podsync"))
    const same = parseMoveTarget("postgres://b:two@db/podsync", config())
    const otherSchema = parseMoveTarget("postgres://a:one@db:5432/podsync?options=-c%20search_path%3Dother", config())
    expect(Either.isRight(same) && samePlace(from, same.right)).toBe(true)
    expect(Either.isRight(otherSchema) && samePlace(from, otherSchema.right)).toBe(false)
    expect(samePlace(configuredPlace(config()), { _tag: "embedded", dataDir: "data/" })).toBe(true)
    expect(describePlace(from)).toBe("PostgreSQL at postgres://a:***@db:5432/podsync")
  })
})
