import * as Command from "@effect/cli/Command"
import * as Prompt from "@effect/cli/Prompt"
import { Console, Effect, Redacted } from "effect"
import { hashPassword } from "../config/PasswordHash.js"
import { CliFailure } from "./AppRuntime.js"

/** Shorter passwords are refused: the hash would be guessed offline in minutes. */
const MIN_PASSWORD_LENGTH = 10

/** The first line of what is piped in (`printf %s "$PW" | podsync console hash-password`). */
const pipedPassword = Effect.promise(async () => {
  let text = ""
  for await (const chunk of process.stdin) text += String(chunk)
  return text.split(/\r?\n/)[0] ?? ""
})

/**
 * `podsync console hash-password`: the scrypt hash of a password for `console.auth.passwordHash`
 * or a team member's `passwordHash`. Typed without echo in a terminal, or piped in; the password
 * itself is never printed, and never on the command line (where `ps` and shell history would keep it).
 */
const hashPasswordCommand = Command.make("hash-password", {}, () =>
  Effect.gen(function*() {
    const password = process.stdin.isTTY
      ? Redacted.value(yield* Prompt.password({ message: "Password (not shown)" }))
      : yield* pipedPassword
    if (password.length < MIN_PASSWORD_LENGTH) {
      return yield* new CliFailure({
        message: `the password has ${password.length} characters: give at least ${MIN_PASSWORD_LENGTH} (a few words are easier to type)`
      })
    }
    yield* Console.log(yield* hashPassword(password))
  })).pipe(
    Command.withDescription("Print the hash of a password (typed, or piped in) for the console's passwordHash")
  )

/** `podsync console hash-password`. */
export const consoleCommand = Command.make("console").pipe(
  Command.withDescription("The web console's logins"),
  Command.withSubcommands([hashPasswordCommand])
)
