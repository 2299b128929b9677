import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { healthcheck } from "./dockerfile.js"
import type { Instruction } from "./dockerfile.js"
import { inRootfs, type StageReplay } from "./imageLayout.js"

/**
 * Runs a hand-built image folder (imageLayout.ts) as a container would: the
 * configuration and mappings where the mounts put them, the image's ENV, the
 * ENTRYPOINT's `node bin/podsync.js` from WORKDIR. Paths inside the image
 * (/etc/podsync, /var/lib/podsync) are moved under the image folder.
 */

const IMAGE_PATHS = ["/etc/podsync", "/var/lib/podsync"] as const

/** The configuration text with the image's absolute paths moved under rootfs. */
export const relocate = (rootfs: string, text: string) =>
  IMAGE_PATHS.reduce((out, imagePath) => out.replaceAll(imagePath, inRootfs(rootfs, imagePath)), text)

/** Stands in for the mounts: config at /etc/podsync/podsync.yaml, mappings, data and reports folders. */
export const mountConfig = (rootfs: string, configText: string, mappingsDir: string) => {
  const etc = inRootfs(rootfs, "/etc/podsync")
  fs.mkdirSync(path.join(etc, "mappings"), { recursive: true })
  fs.writeFileSync(path.join(etc, "podsync.yaml"), relocate(rootfs, configText))
  fs.cpSync(mappingsDir, path.join(etc, "mappings"), { recursive: true })
  for (const volume of ["/var/lib/podsync/data", "/var/lib/podsync/reports"]) fs.mkdirSync(inRootfs(rootfs, volume), { recursive: true })
}

/** The container's environment: the image's ENV (paths relocated), then the given variables; nothing inherited but PATH. */
export const containerEnv = (image: StageReplay, extra: Readonly<Record<string, string>>): Record<string, string> => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: inRootfs(image.rootfs, "/var/lib/podsync") }
  for (const [name, value] of Object.entries(image.env)) env[name] = relocate(image.rootfs, value)
  return { ...env, ...extra }
}

export interface RunOptions {
  /** The node binary (the image's is Node 24; the default is the one running the tests). */
  readonly node?: string
  /** A command prefix, e.g. setpriv to drop to the image's user. */
  readonly wrapper?: ReadonlyArray<string>
}

const command = (options: RunOptions, args: ReadonlyArray<string>) => {
  const all = [...(options.wrapper ?? []), options.node ?? process.execPath, ...args]
  return { program: all[0] ?? "", args: all.slice(1) }
}

export interface Completed {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to completion without blocking the event loop (the test runner keeps talking to its workers). */
export const complete = (
  program: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env: Record<string, string> }
) =>
  new Promise<Completed>((resolve, reject) => {
    const child = spawn(program, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

/** `podsync <args>` from the image's WORKDIR, to completion. */
export const runPodsync = (image: StageReplay, args: ReadonlyArray<string>, env: Record<string, string>, options: RunOptions = {}) => {
  const { program, args: argv } = command(options, ["bin/podsync.js", ...args])
  return complete(program, argv, { cwd: inRootfs(image.rootfs, image.workdir), env })
}

/** `podsync start` in the background; output() is what it printed so far. */
export const startPodsync = (
  image: StageReplay,
  env: Record<string, string>,
  options: RunOptions = {}
): ChildProcess & { output: () => string } => {
  const { program, args } = command(options, ["bin/podsync.js", "start"])
  const child = spawn(program, args, { cwd: inRootfs(image.rootfs, image.workdir), env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (d) => (output += d))
  child.stderr?.on("data", (d) => (output += d))
  return Object.assign(child, { output: () => output })
}

/** Runs the Dockerfile's HEALTHCHECK command as the container runtime would; its exit code. */
export const runHealthcheck = async (instruction: Instruction, env: Record<string, string>, options: RunOptions = {}) => {
  const check = healthcheck(instruction).command
  if (check === undefined || check[0] !== "node") throw new Error("HEALTHCHECK is not an exec-form node command")
  const { program, args } = command(options, check.slice(1))
  return (await complete(program, args, { env })).code
}
