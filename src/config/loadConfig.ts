import * as fs from "node:fs"
import { Data, Effect, Either, Option, ParseResult, Schema } from "effect"
import { parseDocument } from "yaml"
import { editDistance } from "../domain/EditDistance.js"
import { AppConfig } from "./AppConfig.js"

export interface ConfigIssue {
  readonly path: string
  readonly message: string
}

export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly file: string
  readonly issues: ReadonlyArray<ConfigIssue>
}> {
  override get message() {
    return `${this.file} is not a valid podsync configuration (${this.issues.length} ${this.issues.length === 1 ? "error" : "errors"}):\n` +
      this.issues.map((i) => `  ${i.path || "(top level)"}: ${i.message}`).join("\n")
  }
}

export const DEFAULT_CONFIG_PATH = "config/podsync.yaml"

/** --config FILE, else $PODSYNC_CONFIG, else config/podsync.yaml. */
export const resolveConfigPath = (flag: Option.Option<string>, env: NodeJS.ProcessEnv = process.env): string =>
  Option.getOrElse(flag, () => env.PODSYNC_CONFIG || DEFAULT_CONFIG_PATH)

/** `stores[1].shopify.shop` from ["stores", 1, "shopify", "shop"]. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, key) => typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`, "")

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g
const ONLY_PLACEHOLDER = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/

/**
 * Replaces `${NAME}` with the environment variable NAME, `${NAME:-default}`
 * with the default when NAME is unset or empty. An unset NAME without a
 * default is an issue naming it. A value that was only a placeholder and came
 * out empty is dropped, so an optional key reads as absent and an optional list
 * item (`from: ["${PROXY:-}"]`) is left out of its list.
 */
export const interpolateEnv = (
  value: unknown,
  env: NodeJS.ProcessEnv,
  issues: Array<ConfigIssue>,
  path: ReadonlyArray<PropertyKey> = []
): unknown => {
  if (typeof value === "string") {
    return value.replace(PLACEHOLDER, (_, name: string, fallback: string | undefined) => {
      const found = env[name]
      if (found !== undefined && found !== "") return found
      if (fallback !== undefined) return fallback
      issues.push({ path: formatPath(path), message: `environment variable ${name} is not set` })
      return ""
    })
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => {
      const replaced = interpolateEnv(item, env, issues, [...path, i])
      return replaced === "" && typeof item === "string" && ONLY_PLACEHOLDER.test(item) ? [] : [replaced]
    })
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const replaced = interpolateEnv(item, env, issues, [...path, key])
      if (replaced === "" && typeof item === "string" && ONLY_PLACEHOLDER.test(item)) continue
      out[key] = replaced
    }
    return out
  }
  return value
}

const decode = Schema.decodeUnknownEither(AppConfig, { errors: "all", onExcessProperty: "error" })

const LITERAL = /^Expected "([^"]*)", actual (.*)$/
const UNEXPECTED = /^is unexpected, expected: (.*)$/

/**
 * The schema's issues as a person reads them: a value outside a set is one line ("expected one
 * of …; got …") instead of one per allowed value, and an unknown key names the near one it
 * probably meant ("did you mean …?"), else the keys allowed there.
 */
const readable = (issues: ReadonlyArray<ConfigIssue>): Array<ConfigIssue> => {
  const out: Array<ConfigIssue> = []
  const choices = new Map<string, { readonly allowed: Array<string>; readonly actual: string; readonly at: number }>()
  // A key a mistyped one probably meant: "is missing" there is the same mistake, said once.
  const meant = new Set<string>()
  for (const issue of issues) {
    const literal = LITERAL.exec(issue.message)
    if (literal !== null) {
      const [, value = "", actual = ""] = literal
      const known = choices.get(issue.path)
      if (known !== undefined) {
        known.allowed.push(value)
        continue
      }
      choices.set(issue.path, { allowed: [value], actual, at: out.length })
      out.push(issue)
      continue
    }
    const unexpected = UNEXPECTED.exec(issue.message)
    if (unexpected !== null) {
      const key = issue.path.split(/[.[\]]/).filter((part) => part !== "").pop() ?? ""
      const allowed = [...(unexpected[1] ?? "").matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? "")
      const near = allowed
        .map((name) => ({ name, edits: name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, name) }))
        .filter((c) => c.edits <= Math.max(1, Math.floor(key.length / 4)))
        .sort((a, b) => a.edits - b.edits)[0]
      if (near !== undefined) meant.add(issue.path.slice(0, issue.path.length - key.length) + near.name)
      out.push({
        path: issue.path,
        message: near !== undefined
          ? `unknown key "${key}"; did you mean "${near.name}"?`
          : `unknown key "${key}"; expected one of ${allowed.join(", ")}`
      })
      continue
    }
    out.push(issue)
  }
  for (const [path, { actual, allowed, at }] of choices) {
    out[at] = allowed.length === 1
      ? { path, message: `expected ${allowed[0]}; got ${actual}` }
      : { path, message: `expected one of ${allowed.join(", ")}; got ${actual}` }
  }
  return out.filter((issue) => !(meant.has(issue.path) && issue.message === "is missing"))
}

/** The YAML lines around a syntax error, with a caret under its column. */
const excerpt = (text: string, line: number, col: number): string => {
  const lines = text.split(/\r?\n/)
  const shown = [line - 1, line].filter((n) => n >= 1 && n <= lines.length)
  const width = String(line).length
  return shown.map((n) => `\n    ${String(n).padStart(width)} | ${lines[n - 1]}`).join("") +
    `\n    ${" ".repeat(width)}   ${" ".repeat(Math.max(0, col - 1))}^`
}

/** Parses and decodes configuration text; every problem is reported, each with its path. */
export const parseConfig = (
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env
): Either.Either<AppConfig, ConfigError> => {
  const document = parseDocument(text)
  const syntax = document.errors[0]
  if (syntax !== undefined) {
    // Later YAML errors cascade from the first; the first is the one to fix.
    const at = syntax.linePos?.[0]
    const position = at ? `line ${at.line}, column ${at.col}` : ""
    // The quoting hint only where a placeholder stands (the line, or the one before: YAML often notices a line late).
    const near = at ? text.split(/\r?\n/).slice(Math.max(0, at.line - 2), at.line).join("\n") : text
    const hint = near.includes("${") ? " (a ${NAME} inside { } or [ ] must be quoted)" : ""
    const shown = at ? excerpt(text, at.line, at.col) : ""
    return Either.left(
      new ConfigError({
        file,
        issues: [{
          path: position,
          message: `YAML syntax error: ${syntax.message.split(/ at line \d+/)[0] ?? syntax.message}${hint}${shown}`
        }]
      })
    )
  }
  const envIssues: Array<ConfigIssue> = []
  const raw = interpolateEnv(document.toJS() ?? {}, env, envIssues)
  const decoded = decode(raw)
  if (Either.isRight(decoded) && envIssues.length === 0) return Either.right(decoded.right)
  const schemaIssues = Either.isLeft(decoded)
    ? readable(ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({ path: formatPath(i.path), message: i.message })))
    : []
  const envPaths = new Set(envIssues.map((i) => i.path))
  const seen = new Set<string>()
  const issues = [...envIssues, ...schemaIssues.filter((i) => !envPaths.has(i.path))].filter((i) => {
    const key = `${i.path}\u0000${i.message}`
    return seen.has(key) ? false : (seen.add(key), true)
  })
  return Either.left(new ConfigError({ file, issues }))
}

/** Reads and decodes the configuration file. */
export const loadConfig = (file: string, env: NodeJS.ProcessEnv = process.env): Effect.Effect<AppConfig, ConfigError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === "ENOENT"
        ? `file not found (pass --config FILE or set PODSYNC_CONFIG; the default is ${DEFAULT_CONFIG_PATH})`
        : `cannot be read: ${(error as Error).message}`
      return Effect.fail(new ConfigError({ file, issues: [{ path: "", message: reason }] }))
    }
    return parseConfig(text, file, env)
  })
