/**
 * A usage mistake as podsync says it, whoever found it (@effect/cli's parser or a command): one
 * line in podsync's words, with "did you mean" when a near name exists. Pure.
 */
import { editDistance } from "../domain/EditDistance.js"

/** The candidate a mistyped word most probably meant (a third of its letters wrong at most), if any. */
export const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined =>
  candidates
    .map((name) => ({ name, edits: editDistance(word.toLowerCase(), name.toLowerCase()) }))
    .filter((c) => c.edits > 0 && c.edits <= Math.max(1, Math.floor(word.length / 3)))
    .sort((a, b) => a.edits - b.edits)[0]?.name

const didYouMean = (word: string, candidates: ReadonlyArray<string>) => {
  const near = nearest(word, candidates)
  return near === undefined ? "" : `; did you mean ${near}?`
}

/** `no store "x" in FILE; did you mean "y"? (its stores: a, b)`: the same words for every command's --store. */
export const unknownStoreMessage = (key: string, stores: ReadonlyArray<string>, file: string) => {
  const near = nearest(key, stores)
  return `no store "${key}" in ${file}${near === undefined ? "" : `; did you mean "${near}"?`} ` +
    `(its stores: ${stores.join(", ") || "none"})`
}

const TYPE_WORDS: Record<string, string> = { integer: "a whole number", float: "a number", date: "a date", boolean: "true or false" }

export interface MistakeContext {
  /** The words after `podsync`. */
  readonly words: ReadonlyArray<string>
  /** The options the named command takes (`--store`), with the ones every command takes. */
  readonly options: ReadonlyArray<string>
  /** The commands (`status`), and each command's subcommands (`mappings load`). */
  readonly commands: ReadonlyArray<string>
}

/** @effect/cli's message for a mistake, in podsync's words. */
export const rewordMistake = (said: string, context: MistakeContext): string => {
  const text = said.trim()
  const unknownArgument = /^Received unknown argument: '(.*)'$/.exec(text)
  if (unknownArgument !== null) {
    const word = unknownArgument[1] ?? ""
    if (!word.startsWith("-")) return `unexpected "${word}"`
    const flag = word.split("=")[0] ?? word
    return `unknown option ${flag}${didYouMean(flag, context.options)}`
  }
  const missing = /^Expected to find option: '(.*)'$/.exec(text)
  if (missing !== null) return `${missing[1]} is required`
  const notA = /^'(.*)' is not a (\w+)$/.exec(text)
  if (notA !== null) {
    const [, value = "", type = ""] = notA
    const at = context.words.findIndex((word, i) => word === value && context.words[i - 1]?.startsWith("--") === true)
    const inline = context.words.find((word) => word.startsWith("--") && word.endsWith(`=${value}`))
    const flag = at > 0 ? context.words[at - 1] : inline?.split("=")[0]
    return `${flag ?? "an option"} expects ${TYPE_WORDS[type] ?? `a ${type}`}, got "${value}"`
  }
  if (/^Invalid subcommand for /.test(text)) {
    const parents = new Set(context.commands.filter((c) => c.includes(" ")).map((c) => c.split(" ")[0] ?? ""))
    const at = context.words.findIndex((word) => parents.has(word))
    const next = at === -1 ? undefined : context.words.slice(at + 1).find((word) => !word.startsWith("-"))
    if (at !== -1 && next !== undefined) {
      const typed = `${context.words[at]} ${next}`
      return `unknown command "${typed}"${didYouMean(typed, context.commands.filter((c) => c.includes(" ")))}`
    }
    const typed = context.words.find((word) => !word.startsWith("-")) ?? ""
    return `unknown command "${typed}"${didYouMean(typed, context.commands.filter((c) => !c.includes(" ")))}`
  }
  return text
}
