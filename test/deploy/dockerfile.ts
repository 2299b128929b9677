/**
 * Just enough of the Dockerfile grammar to check deploy/Dockerfile and replay
 * its stages by hand: comments, line continuations, ARG defaults in FROM,
 * flags (--from=, --mount=, --interval=), and exec-form (JSON) arguments.
 */

export interface Instruction {
  /** Upper-case keyword: FROM, COPY, RUN, ... */
  readonly keyword: string
  /** Flags before the arguments, e.g. { from: "build" } for COPY --from=build. */
  readonly flags: Readonly<Record<string, string>>
  /** The arguments after the flags, continuations joined with a space. */
  readonly args: string
  /** 1-based line where the instruction starts. */
  readonly line: number
}

export interface Stage {
  readonly name: string
  /** The base image with ARG defaults substituted. */
  readonly image: string
  readonly instructions: ReadonlyArray<Instruction>
}

export interface Dockerfile {
  /** ARG instructions before the first FROM, with their defaults. */
  readonly args: Readonly<Record<string, string>>
  readonly stages: ReadonlyArray<Stage>
}

const logicalLines = (text: string): Array<{ readonly line: number; readonly text: string }> => {
  const out: Array<{ line: number; text: string }> = []
  let current: { line: number; text: string } | undefined
  text.split("\n").forEach((raw, index) => {
    const trimmed = raw.trim()
    if (trimmed.startsWith("#")) return // comments (and parser directives) end nothing
    if (current === undefined) {
      if (trimmed === "") return
      current = { line: index + 1, text: "" }
    }
    const continued = /\\\s*$/.test(raw)
    current.text += (current.text === "" ? "" : " ") + (continued ? raw.replace(/\\\s*$/, "") : raw).trim()
    if (!continued) {
      out.push(current)
      current = undefined
    }
  })
  if (current !== undefined) out.push(current)
  return out
}

const parseInstruction = (line: number, text: string): Instruction => {
  const match = /^(\S+)\s*(.*)$/s.exec(text)
  const keyword = (match?.[1] ?? "").toUpperCase()
  let rest = match?.[2] ?? ""
  const flags: Record<string, string> = {}
  for (;;) {
    const flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest)
    if (flag === null) break
    flags[flag[1] ?? ""] = flag[2] ?? "true"
    rest = rest.slice(flag[0].length)
  }
  return { keyword, flags, args: rest.trim(), line }
}

const substitute = (value: string, args: Readonly<Record<string, string>>) =>
  value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (whole, name: string) => args[name] ?? whole)

export const parseDockerfile = (text: string): Dockerfile => {
  const args: Record<string, string> = {}
  const stages: Array<{ name: string; image: string; instructions: Array<Instruction> }> = []
  for (const { line, text: logical } of logicalLines(text)) {
    const instruction = parseInstruction(line, logical)
    const stage = stages.at(-1)
    if (instruction.keyword === "FROM") {
      const [image = "", as, name] = instruction.args.split(/\s+/)
      stages.push({
        name: as?.toUpperCase() === "AS" && name !== undefined ? name : String(stages.length),
        image: substitute(image, args),
        instructions: []
      })
    } else if (stage === undefined) {
      if (instruction.keyword === "ARG") {
        const [name = "", value = ""] = instruction.args.split("=", 2)
        args[name] = value
      }
    } else {
      stage.instructions.push(instruction)
    }
  }
  return { args, stages }
}

/** The JSON array of an exec-form instruction (CMD ["a", "b"]), or undefined for the shell form. */
export const execForm = (args: string): ReadonlyArray<string> | undefined => {
  if (!args.startsWith("[")) return undefined
  const parsed: unknown = JSON.parse(args)
  return Array.isArray(parsed) && parsed.every((item) => typeof item === "string") ? parsed : undefined
}

/** The HEALTHCHECK's options and its CMD, e.g. { options: { interval: "30s" }, command: ["node", "-e", ...] }. */
export const healthcheck = (instruction: Instruction) => {
  const command = /^CMD\s+(.*)$/s.exec(instruction.args)?.[1]
  return { options: instruction.flags, command: command === undefined ? undefined : execForm(command) }
}

/** COPY sources and destination: the last word is the destination. */
export const copyPaths = (instruction: Instruction) => {
  const words = execForm(instruction.args) ?? instruction.args.split(/\s+/)
  return { from: instruction.flags["from"], sources: words.slice(0, -1), destination: words.at(-1) ?? "" }
}

/** Splits a RUN's shell command on `&&` into simple commands. */
export const runCommands = (instruction: Instruction): ReadonlyArray<ReadonlyArray<string>> =>
  instruction.args.split("&&").map((part) => part.trim().split(/\s+/).filter((word) => word !== ""))

export const stageNamed = (dockerfile: Dockerfile, name: string): Stage => {
  const stage = dockerfile.stages.find((s) => s.name === name)
  if (stage === undefined) throw new Error(`no stage named ${name}`)
  return stage
}

export const instructionsOf = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword)
