/**
 * `--help` as a person reads it in a terminal or a pipe: plain text (no colour codes), without
 * @effect/cli's generic lines ("A user-defined piece of text.", "This setting is optional."), the
 * shell-completion and wizard built-ins left out, podsync's own --log-level, and lines wrapped
 * to 100 columns. Pure.
 */
import type { HelpDoc } from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"

const WIDTH = 100

/** Paragraphs @effect/cli adds to every option of a kind: they say nothing about this option. */
const GENERIC =
  /^(A user-defined piece of text\.|A true or false value\.|An integer\.|This setting is optional\.|A date|A file system path\.|A directory\.|A file\.|One of the following: .*)$/

/** Built-in options a seller does not need in podsync's help. */
const HIDDEN = /^(--completions|--wizard)\b/

const LOG_LEVEL = {
  term: "--log-level trace | debug | info | warning | error | none",
  text:
    "the least important log lines to write, before or after the command (over log.level and $PODSYNC_LOG_LEVEL; default: log.level, else info)"
}

const textOf = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
      return span.value
    case "URI":
      return span.value.toString()
    case "Sequence":
      return textOf(span.left) + textOf(span.right)
    default:
      return textOf(span.value)
  }
}

const wrap = (text: string, indent: string): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(indent + line)
  return lines
}

const render = (doc: HelpDoc, indent: string): Array<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return ["", textOf(doc.value).toUpperCase()]
    case "Paragraph": {
      const text = textOf(doc.value).trim()
      return text === "" || GENERIC.test(text) ? [] : wrap(text, indent)
    }
    case "DescriptionList":
      return doc.definitions.flatMap(([term, description]) => {
        const name = textOf(term).trim()
        if (HIDDEN.test(name)) return []
        if (name.startsWith("--log-level")) return [`${indent}${LOG_LEVEL.term}`, ...wrap(LOG_LEVEL.text, `${indent}    `)]
        return [`${indent}${name}`, ...render(description, `${indent}    `)]
      })
    case "Enumeration":
      return doc.elements.flatMap((element) => render(element, indent))
    case "Sequence":
      return [...render(doc.left, indent), ...render(doc.right, indent)]
  }
}

/** A command's help: its usage line, then its description and options as @effect/cli lists them. */
export const renderHelp = (usage: string, doc: HelpDoc): string => {
  const lines = render(doc, "")
  // @effect/cli's own usage section names the command without "podsync": ours replaces it.
  const from = lines.findIndex((line) => line === "DESCRIPTION")
  // A long usage line continues under the first option.
  // The command's words (`console hash-password`), up to the first option or argument.
  const command = /^(?:[a-z][\w-]*(?: |$))*/.exec(usage)?.[0].trimEnd() ?? ""
  const indent = " ".repeat(`usage: podsync ${command} `.length)
  const usageLines = (usage.slice(command.length).match(/\[[^\]]*\]|<.*>|\S+/g) ?? []).reduce<Array<string>>(
    (done, group) => {
      const last = done[done.length - 1] ?? ""
      return last.length + 1 + group.length > WIDTH ? [...done, indent + group] : [...done.slice(0, -1), `${last} ${group}`]
    },
    [`usage: podsync ${command}`]
  )
  return [...usageLines, "", ...(from === -1 ? lines : lines.slice(from))].join("\n").replace(/\n{3,}/g, "\n\n").trim() +
    "\n"
}

/** The first paragraph of a help's DESCRIPTION section. */
export const descriptionOf = (doc: HelpDoc): string => {
  const lines = render(doc, "")
  const at = lines.indexOf("DESCRIPTION")
  if (at === -1) return ""
  const rest = lines.slice(at + 1)
  const end = rest.findIndex((line) => line.trim() === "")
  return (end === -1 ? rest : rest.slice(0, end)).map((line) => line.trim()).join(" ")
}

/** podsync's own help: the commands, one line each, and the options every command takes. */
export const renderOverview = (version: string, commands: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...commands.map(([name]) => name.length)) + 2
  return [
    `podsync ${version}: connects print-on-demand stores to the POD service's API v3`,
    "",
    "usage: podsync <command> [options]   (podsync <command> --help: its options)",
    "",
    "COMMANDS",
    ...commands.flatMap(([name, description]) => {
      const [first = "", ...rest] = wrap(description, " ".repeat(width + 2))
      return [`  ${name.padEnd(width)}${first.trimStart()}`, ...rest]
    }),
    "",
    "OPTIONS OF EVERY COMMAND",
    "  --config FILE",
    "      the configuration file (default: $PODSYNC_CONFIG, else config/podsync.yaml)",
    `  ${LOG_LEVEL.term}`,
    ...wrap(LOG_LEVEL.text, "      "),
    "  -h, --help",
    "      this help, or a command's",
    "  --version",
    "      podsync's version",
    ""
  ].join("\n")
}
