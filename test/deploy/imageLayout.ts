import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { copyPaths, type Dockerfile, instructionsOf, runCommands, stageNamed } from "./dockerfile.js"

/**
 * Replays a stage of deploy/Dockerfile by hand, without Docker: each stage gets
 * a folder standing for its filesystem root; WORKDIR, ENV and COPY are applied
 * as Docker would, and RUN's npm and rm commands are run for real in the
 * working directory. The user and folder setup (groupadd, useradd, mkdir,
 * chown of image paths) is not run: it is returned as skipped, for the caller
 * to check and to stand in for.
 */

export interface StageReplay {
  /** The folder standing for the stage's "/". */
  readonly rootfs: string
  /** WORKDIR, as a path inside the image. */
  readonly workdir: string
  /** ENV of the stage. */
  readonly env: Readonly<Record<string, string>>
  /** The commands run, as argument lists. */
  readonly ran: ReadonlyArray<ReadonlyArray<string>>
  /** The commands left out: the user and folder setup. */
  readonly skipped: ReadonlyArray<ReadonlyArray<string>>
}

export interface ReplayOptions {
  readonly stage: string
  readonly rootfs: string
  /** The build context: the repository root. */
  readonly context: string
  /** Roots of stages that COPY --from may name: a folder standing for that stage's "/". */
  readonly stages: Readonly<Record<string, string>>
  /** npm without the network: adds --offline to `npm ci` (the npm cache must hold the packages). */
  readonly offline: boolean
}

/** A path inside the image, as a path in the stage's folder. */
export const inRootfs = (rootfs: string, imagePath: string) => path.join(rootfs, imagePath)

const parseEnvInstruction = (args: string): Array<[string, string]> =>
  args.split(/\s+/).filter((pair) => pair.includes("=")).map((pair) => {
    const at = pair.indexOf("=")
    return [pair.slice(0, at), pair.slice(at + 1)]
  })

const copy = (from: string, to: string) => {
  fs.mkdirSync(path.dirname(to), { recursive: true })
  fs.cpSync(from, to, { recursive: true, dereference: false })
}

/** Runs a program to completion without blocking the event loop (a test runner keeps talking to its workers meanwhile). */
const execute = (program: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.once("error", reject)
    child.once("exit", (code) => code === 0 ? resolve() : reject(new Error(`${program} ${args.join(" ")} failed (${code}):\n${output}`)))
  })

const run = async (command: ReadonlyArray<string>, cwd: string, offline: boolean) => {
  const [program = "", ...args] = command
  if (program === "npm") {
    const extra = offline && args[0] === "ci" ? ["--offline"] : []
    return execute("npm", [...args, ...extra], cwd)
  }
  if (program === "rm") {
    const targets = args.filter((a) => !a.startsWith("-"))
    for (const target of targets) {
      if (path.isAbsolute(target) || target.includes("..")) throw new Error(`refusing rm outside the working directory: ${target}`)
      await fs.promises.rm(path.join(cwd, target), { recursive: true, force: true })
    }
    return
  }
  throw new Error(`not replayable: ${command.join(" ")}`)
}

const userAndFolderSetup = new Set(["groupadd", "useradd", "chown", "mkdir"])

export const replayStage = async (dockerfile: Dockerfile, options: ReplayOptions): Promise<StageReplay> => {
  const stage = stageNamed(dockerfile, options.stage)
  let workdir = "/"
  const env: Record<string, string> = {}
  const ran: Array<ReadonlyArray<string>> = []
  const skipped: Array<ReadonlyArray<string>> = []
  fs.mkdirSync(options.rootfs, { recursive: true })
  for (const instruction of stage.instructions) {
    const cwd = inRootfs(options.rootfs, workdir)
    switch (instruction.keyword) {
      case "WORKDIR":
        workdir = path.posix.resolve(workdir, instruction.args)
        fs.mkdirSync(inRootfs(options.rootfs, workdir), { recursive: true })
        break
      case "ENV":
        for (const [name, value] of parseEnvInstruction(instruction.args)) env[name] = value
        break
      case "COPY": {
        const { from, sources, destination } = copyPaths(instruction)
        const sourceRoot = from === undefined ? options.context : options.stages[from]
        if (sourceRoot === undefined) throw new Error(`line ${instruction.line}: no folder for stage ${from}`)
        const target = inRootfs(options.rootfs, path.posix.resolve(workdir, destination))
        for (const source of sources) {
          const origin = path.join(sourceRoot, source)
          if (!fs.existsSync(origin)) throw new Error(`line ${instruction.line}: COPY source missing: ${origin}`)
          const intoFolder = destination.endsWith("/") || sources.length > 1
          copy(origin, fs.statSync(origin).isDirectory() || !intoFolder ? target : path.join(target, path.basename(source)))
        }
        break
      }
      case "RUN":
        for (const command of runCommands(instruction)) {
          if (userAndFolderSetup.has(command[0] ?? "")) {
            skipped.push(command)
          } else {
            await run(command, cwd, options.offline)
            ran.push(command)
          }
        }
        break
      default:
        // USER, VOLUME, EXPOSE, HEALTHCHECK, STOPSIGNAL, ENTRYPOINT, CMD: metadata, read by the tests.
        break
    }
  }
  return { rootfs: options.rootfs, workdir, env, ran, skipped }
}

/** The instruction values a container runtime would read from the stage. */
export const runtimeMetadata = (dockerfile: Dockerfile, stage: string) => {
  const s = stageNamed(dockerfile, stage)
  const last = (keyword: string) => instructionsOf(s, keyword).at(-1)
  return {
    user: last("USER")?.args,
    entrypoint: last("ENTRYPOINT")?.args,
    cmd: last("CMD")?.args,
    healthcheck: last("HEALTHCHECK"),
    volumes: instructionsOf(s, "VOLUME").map((v) => v.args),
    /** The stage's ENV, by name. */
    env: Object.fromEntries(instructionsOf(s, "ENV").flatMap((e) => parseEnvInstruction(e.args))) as Readonly<Record<string, string>>
  }
}
