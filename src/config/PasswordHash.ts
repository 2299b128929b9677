import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

/**
 * The console's password hashes (`console.auth.passwordHash`, `console.auth.users[].passwordHash`):
 * scrypt from node:crypto, made by `podsync console hash-password` and checked at each login.
 */

/** `scrypt:<N>:<r>:<p>:<salt>:<hash>` of `password`, as README "Console" makes it. */
export const hashPassword = (password: string, cost = 16384) =>
  Effect.async<string>((resume) => {
    const salt = randomBytes(16)
    scrypt(password, salt, 32, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 }, (error, key) => {
      resume(error ? Effect.die(error) : Effect.succeed(`scrypt:${cost}:8:1:${salt.toString("base64")}:${key.toString("base64")}`))
    })
  })

/** Whether `password` is the one `stored` (a `hashPassword` answer) was made from. A malformed hash matches nothing. */
export const passwordMatches = (password: string, stored: string) =>
  Effect.async<boolean>((resume) => {
    const [scheme, n, r, p, salt, hash] = stored.split(":")
    const N = Number(n), R = Number(r), P = Number(p)
    if (scheme !== "scrypt" || salt === undefined || hash === undefined || ![N, R, P].every(Number.isSafeInteger)) {
      return resume(Effect.succeed(false))
    }
    const expected = Buffer.from(hash, "base64")
    scrypt(password, Buffer.from(salt, "base64"), expected.length, { N, r: R, p: P, maxmem: 256 * N * R }, (error, key) => {
      resume(Effect.succeed(error === null && key.length === expected.length && timingSafeEqual(key, expected)))
    })
  })
