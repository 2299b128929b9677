/**
 * A store token that renews itself (RenewingToken.ts), on the TestClock: when it is renewed, that
 * one renewal serves every fiber and every replica, that a refusal renews once, that Etsy's newest
 * refresh token is the one presented, and that a changed configuration wins over the stored line.
 * One contract for the token row in memory and in the database (PGlite, and PostgreSQL when
 * TEST_DATABASE_URL is set; two "replicas" there are two connection pools).
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Option, Redacted, Ref, TestClock } from "effect"
import { Db } from "../../src/db/Db.js"
import { renewAtMillis, type StoreTokenStore, tokenSeed } from "../../src/domain/StoreToken.js"
import { makeSqlStoreTokens } from "../../src/repos/SqlStoreTokens.js"
import { makeInMemoryStoreTokens } from "../../src/stores/InMemoryStoreTokens.js"
import { type IssuedToken, makeRenewingToken } from "../../src/stores/RenewingToken.js"
import { StoreAuthError } from "../../src/stores/StoreErrors.js"
import { otherReplicaDb, testDatabases } from "../support/database.js"

const LIFETIME_S = 10
const SEED = tokenSeed(["shopify", "acme.myshopify.com", "client-id", "client-secret"])

/** A token endpoint: token-<n>, refresh-<n>; what each grant was presented with. */
const tokenEndpoint = Effect.gen(function*() {
  const presented = yield* Ref.make<Array<string | undefined>>([])
  const issue = (refreshToken: Redacted.Redacted<string> | undefined) =>
    Effect.flatMap(
      Ref.modify(presented, (all) => [all.length + 1, [...all, refreshToken === undefined ? undefined : Redacted.value(refreshToken)]]),
      (n): Effect.Effect<IssuedToken> =>
        // A grant takes a moment: fibers that ask meanwhile must wait for it, not ask too.
        Effect.as(Effect.yieldNow(), {
          accessToken: Redacted.make(`token-${n}`),
          expiresInSeconds: LIFETIME_S,
          refreshToken: Redacted.make(`refresh-${n}`)
        })
    )
  return { issue, presented: Ref.get(presented), grants: Effect.map(Ref.get(presented), (all) => all.length) }
})

type Endpoint = Effect.Effect.Success<typeof tokenEndpoint>

const tokenOn = (
  store: StoreTokenStore,
  endpoint: Endpoint,
  options: { readonly seed?: string; readonly configuredRefreshToken?: string } = {}
) =>
  makeRenewingToken({
    storeKey: "acme",
    operation: "clientCredentialsGrant",
    seed: options.seed ?? SEED,
    row: store.open("acme"),
    ...(options.configuredRefreshToken === undefined ? {} : { configuredRefreshToken: Redacted.make(options.configuredRefreshToken) }),
    issue: endpoint.issue,
    claimLease: "40 seconds",
    pollEvery: "200 millis"
  })

const value = <E, R>(token: Effect.Effect<Redacted.Redacted<string>, E, R>) => Effect.map(token, Redacted.value)

const contract = <R>(
  test: (name: string, body: () => Effect.Effect<void, unknown, R>) => void,
  replicas: Effect.Effect<readonly [StoreTokenStore, StoreTokenStore], never, R>
) => {
  test("renews at 80 % of the lifetime, not before, and not again until the next 80 %", () =>
    Effect.gen(function*() {
      const [store] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const token = yield* tokenOn(store, endpoint)
      expect(yield* value(token.current)).toBe("token-1")
      yield* TestClock.adjust(7_999)
      expect(yield* value(token.current)).toBe("token-1")
      yield* TestClock.adjust(1)
      expect(yield* value(token.current)).toBe("token-2")
      yield* TestClock.adjust(7_999)
      expect(yield* value(token.current)).toBe("token-2")
      expect(yield* endpoint.grants).toBe(2)
    }))

  test("serves every fiber of the process from one renewal", () =>
    Effect.gen(function*() {
      const [store] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const token = yield* tokenOn(store, endpoint)
      const first = yield* Effect.all(Array.from({ length: 25 }, () => value(token.current)), { concurrency: "unbounded" })
      expect(new Set(first)).toEqual(new Set(["token-1"]))
      yield* TestClock.adjust(8_000)
      const second = yield* Effect.all(Array.from({ length: 25 }, () => value(token.current)), { concurrency: "unbounded" })
      expect(new Set(second)).toEqual(new Set(["token-2"]))
      expect(yield* endpoint.grants).toBe(2)
    }))

  test("two replicas ask for one token per lifetime between them, not one each", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const a = yield* tokenOn(one, endpoint)
      const b = yield* tokenOn(two, endpoint)
      // 10 lifetimes of 10 s, both replicas asking every second (b half a second after a).
      for (let second = 0; second < 100; second++) {
        yield* a.current
        yield* TestClock.adjust(500)
        yield* b.current
        yield* TestClock.adjust(500)
      }
      // One grant at 0 s, then one at each 80 % (8 s): 13 in 100 s, however many replicas.
      expect(yield* endpoint.grants).toBe(13)
    }))

  test("a refused token is renewed once, by whichever replica saw the refusal first", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const a = yield* tokenOn(one, endpoint)
      const b = yield* tokenOn(two, endpoint)
      const refused = yield* a.current
      expect(yield* value(b.current)).toBe("token-1")
      yield* a.invalidate(refused)
      expect(yield* value(a.current)).toBe("token-2")
      // b was refused the same token: the row already holds a newer one.
      yield* b.invalidate(refused)
      expect(yield* value(b.current)).toBe("token-2")
      // A refusal of a token already replaced changes nothing.
      yield* a.invalidate(refused)
      expect(yield* value(a.current)).toBe("token-2")
      expect(yield* endpoint.grants).toBe(2)
    }))

  test("presents the newest refresh token the store gave, across restarts, the configured one only first", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const seed = tokenSeed(["etsy", "keystring", "configured"])
      const first = yield* tokenOn(one, endpoint, { seed, configuredRefreshToken: "configured" })
      yield* first.current
      yield* TestClock.adjust(8_000)
      yield* first.current
      // A restart (a new process on the same row) goes on from the newest.
      const restarted = yield* tokenOn(two, endpoint, { seed, configuredRefreshToken: "configured" })
      yield* TestClock.adjust(8_000)
      yield* restarted.current
      expect(yield* endpoint.presented).toEqual(["configured", "refresh-1", "refresh-2"])
      expect(Redacted.value((yield* restarted.refreshToken)!)).toBe("refresh-3")
    }))

  test("a new configured credential wins over the stored line (the seller authorised the app again)", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const old = yield* tokenOn(one, endpoint, { seed: tokenSeed(["etsy", "k", "old"]), configuredRefreshToken: "old" })
      yield* old.current
      yield* TestClock.adjust(8_000)
      yield* old.current
      const reauthorised = yield* tokenOn(two, endpoint, { seed: tokenSeed(["etsy", "k", "new"]), configuredRefreshToken: "new" })
      // The stored token is not this configuration's: renewed at once, from the configured refresh token.
      expect(yield* value(reauthorised.current)).toBe("token-3")
      yield* TestClock.adjust(8_000)
      yield* reauthorised.current
      expect(yield* endpoint.presented).toEqual(["old", "refresh-1", "new", "refresh-3"])
    }))

  test("a claim left by a replica killed mid-renewal holds the others only until its lease ends", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      // The dead replica claimed the first renewal and never answered.
      expect(yield* one.open("acme").claim(undefined, SEED, yield* Clock.currentTimeMillis, 40_000)).toBe(true)
      const token = yield* tokenOn(two, endpoint)
      const waiting = yield* Effect.fork(token.current)
      yield* TestClock.adjust(39_800)
      expect(yield* endpoint.grants).toBe(0)
      // Past the lease's end the waiting replica takes the renewal at its next poll. On a real database a
      // poll may be waiting for its answer while the clock moves, and it then sleeps from the later time:
      // move the clock a poll at a time, letting the database answer in between, until the token comes.
      let polls = 0
      while (Option.isNone(yield* Fiber.poll(waiting)) && polls < 50) {
        yield* TestClock.adjust(200)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        polls++
      }
      expect(Option.isSome(yield* Fiber.poll(waiting))).toBe(true)
      expect(Redacted.value(yield* Fiber.join(waiting))).toBe("token-1")
      expect(yield* endpoint.grants).toBe(1)
    }))

  test("a failed renewal releases its claim: the next caller asks again at once", () =>
    Effect.gen(function*() {
      const [one, two] = yield* replicas
      const endpoint = yield* tokenEndpoint
      const failing = yield* makeRenewingToken({
        storeKey: "acme",
        operation: "clientCredentialsGrant",
        seed: SEED,
        row: one.open("acme"),
        issue: () => Effect.fail(new StoreAuthError({ storeKey: "acme", operation: "clientCredentialsGrant", status: 400 })),
        claimLease: "40 seconds"
      })
      expect(yield* Effect.flip(failing.current)).toMatchObject({ _tag: "StoreAuthError", status: 400 })
      const other = yield* tokenOn(two, endpoint)
      expect(yield* value(other.current)).toBe("token-1")
    }))
}

describe("a renewing store token in memory", () => {
  const shared = Effect.sync(() => {
    const store = makeInMemoryStoreTokens()
    return [store, store] as const
  })
  contract((name, body) => it.effect(name, body), shared)
})

for (const database of testDatabases()) {
  describe(`a renewing store token in the database on ${database.name}`, () => {
    it.layer(database.layer)((it) => {
      let n = 0
      const replicas = Effect.gen(function*() {
        const first = yield* Db
        const second = yield* otherReplicaDb(database)
        // A row of its own per test: each test starts with no token.
        const key = `t${n++}`
        const storeOf = (db: typeof first) => {
          const store = makeSqlStoreTokens(db.kysely)
          return { open: (_storeKey: string) => store.open(key) }
        }
        return [storeOf(first), storeOf(second)] as const
      })
      contract((name, body) => it.scoped(name, body), replicas)

      it.scoped("keeps the token in store_tokens with the time it was issued and its expiry", () =>
        Effect.gen(function*() {
          const db = yield* Db
          const endpoint = yield* tokenEndpoint
          const token = yield* tokenOn(makeSqlStoreTokens(db.kysely), endpoint)
          yield* token.current
          const row = yield* Effect.promise(() =>
            db.kysely.selectFrom("store_tokens").selectAll().where("store_key", "=", "acme").executeTakeFirstOrThrow()
          )
          expect(row.access_token).toBe("token-1")
          expect(Number(row.expires_at_ms) - Number(row.issued_at_ms)).toBe(LIFETIME_S * 1000)
          expect(renewAtMillis(Number(row.issued_at_ms), Number(row.expires_at_ms))).toBe(Number(row.issued_at_ms) + 8_000)
        }))
    })
  })
}
