import { randomUUID } from "node:crypto"
import { Clock, Effect, Redacted, Ref } from "effect"
import {
  type ConsoleAccess,
  csrfMatches,
  csrfTokenOf,
  passwordMatches,
  sameSecret,
  type Session,
  sessionCookieValue,
  sessionKeyOf,
  sessionOfCookie
} from "./ConsoleAccess.js"

/** Failed logins allowed per address within the window, before the address must wait. */
export const LOGIN_FAILURES_ALLOWED = 5
export const LOGIN_WINDOW_MS = 15 * 60_000
const LOCAL_SESSION_HOURS = 12

export const SESSION_COOKIE = "podsync_console"

export type LoginOutcome =
  | { readonly _tag: "LoggedIn"; readonly session: Session }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Limited"; readonly retryAfterSeconds: number }

export interface ConsoleAuthSettings {
  readonly access: ConsoleAccess
  readonly sessionSecret: Redacted.Redacted<string> | undefined
}

/**
 * The console's logins: sessions in signed cookies (ended early by logging out), their CSRF
 * tokens, and a limit on failed logins per address. Time comes from `Clock`.
 */
export class ConsoleAuth extends Effect.Service<ConsoleAuth>()("podsync/ConsoleAuth", {
  effect: (settings: ConsoleAuthSettings) =>
    Effect.gen(function*() {
      const key = sessionKeyOf(settings.sessionSecret)
      // Logged-out sessions, until they would have expired anyway.
      const ended = yield* Ref.make(new Map<string, number>())
      const failures = yield* Ref.make(new Map<string, ReadonlyArray<number>>())

      const newSession = (user: string, hours: number) =>
        Effect.map(Clock.currentTimeMillis, (nowMs): Session => ({ user, id: randomUUID(), expiresAtMs: nowMs + hours * 3_600_000 }))

      const sessionOf = (cookie: string | undefined) =>
        Effect.gen(function*() {
          if (cookie === undefined) return undefined
          const nowMs = yield* Clock.currentTimeMillis
          const session = sessionOfCookie(key, cookie, nowMs)
          if (session === undefined) return undefined
          return (yield* Ref.get(ended)).has(session.id) ? undefined : session
        })

      const recentFailures = (address: string, nowMs: number) =>
        Effect.map(Ref.get(failures), (all) => (all.get(address) ?? []).filter((at) => at > nowMs - LOGIN_WINDOW_MS))

      const login = (address: string, user: string, password: string) =>
        Effect.gen(function*() {
          if (settings.access._tag !== "Login") return { _tag: "Refused" } satisfies LoginOutcome
          const auth = settings.access.auth
          const nowMs = yield* Clock.currentTimeMillis
          const recent = yield* recentFailures(address, nowMs)
          const [oldest] = recent
          if (recent.length >= LOGIN_FAILURES_ALLOWED && oldest !== undefined) {
            return { _tag: "Limited", retryAfterSeconds: Math.ceil((oldest + LOGIN_WINDOW_MS - nowMs) / 1000) } satisfies LoginOutcome
          }
          const byToken = auth.token !== undefined && password !== "" && sameSecret(password, auth.token)
          const byPassword = !byToken && auth.passwordHash !== undefined && user === auth.user && password !== "" &&
            (yield* passwordMatches(password, Redacted.value(auth.passwordHash)))
          const member = byToken || byPassword ? undefined : (auth.users ?? []).find((u) => u.name === user)
          const byMember = member?.passwordHash !== undefined && password !== "" &&
            (yield* passwordMatches(password, Redacted.value(member.passwordHash)))
          if (byToken || byPassword || byMember) {
            yield* Ref.update(failures, (all) => {
              const next = new Map(all)
              next.delete(address)
              return next
            })
            const name = byMember ? member.name : auth.user
            return { _tag: "LoggedIn", session: yield* newSession(name, auth.sessionHours) } satisfies LoginOutcome
          }
          yield* Ref.update(failures, (all) => new Map(all).set(address, [...recent, nowMs]))
          return { _tag: "Refused" } satisfies LoginOutcome
        })

      const logout = (session: Session) =>
        Effect.flatMap(Clock.currentTimeMillis, (nowMs) =>
          Ref.update(ended, (all) => {
            const next = new Map([...all].filter(([, until]) => until > nowMs))
            return next.set(session.id, session.expiresAtMs)
          }))

      return {
        access: settings.access,
        sessionOf,
        login,
        logout,
        /** On a loopback host without auth: a session for whoever is on this machine. */
        localSession: newSession("local", LOCAL_SESSION_HOURS),
        /** A session for the person a trusted proxy names. */
        proxySession: (user: string) =>
          newSession(user, settings.access._tag === "Login" ? settings.access.auth.sessionHours : LOCAL_SESSION_HOURS),
        cookieValue: (session: Session) => sessionCookieValue(key, session),
        csrfToken: (session: Session) => csrfTokenOf(key, session),
        csrfMatches: (session: Session, given: string | undefined) => csrfMatches(key, session, given)
      }
    })
}) {}
