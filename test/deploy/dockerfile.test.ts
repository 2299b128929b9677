import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { deployConfigText, dockerfile, readDeploy, repoRoot } from "./deployFiles.js"
import { copyPaths, execForm, healthcheck, instructionsOf, parseDockerfile, runCommands, stageNamed } from "./dockerfile.js"
import { runtimeMetadata } from "./imageLayout.js"

const file = dockerfile()
const build = stageNamed(file, "build")
const runtime = stageNamed(file, "runtime")
const runs = (stage: typeof build) => instructionsOf(stage, "RUN").flatMap(runCommands)
const copies = (stage: typeof build) => instructionsOf(stage, "COPY").map(copyPaths)

describe("the Dockerfile parser", () => {
  it("joins continuations, skips comments inside them, reads flags and ARG defaults", () => {
    const parsed = parseDockerfile([
      "# syntax=docker/dockerfile:1",
      "ARG BASE=node:24-bookworm-slim",
      "FROM ${BASE} AS one",
      "RUN --mount=type=cache,target=/root/.npm \\",
      "    # a comment inside",
      "    npm ci \\",
      " && rm -rf x",
      "COPY --from=one /app/dist ./dist",
      "FROM scratch"
    ].join("\n"))
    expect(parsed.args).toEqual({ BASE: "node:24-bookworm-slim" })
    expect(parsed.stages.map((s) => [s.name, s.image])).toEqual([["one", "node:24-bookworm-slim"], ["1", "scratch"]])
    const [run, copy] = parsed.stages[0]?.instructions ?? []
    expect(run?.flags).toEqual({ mount: "type=cache,target=/root/.npm" })
    expect(run && runCommands(run)).toEqual([["npm", "ci"], ["rm", "-rf", "x"]])
    expect(copy && copyPaths(copy)).toEqual({ from: "one", sources: ["/app/dist"], destination: "./dist" })
  })
})

describe("deploy/Dockerfile", () => {
  it("has a build stage and a runtime stage, both on Node 24 LTS slim", () => {
    expect(file.stages.map((s) => s.name)).toEqual(["build", "runtime"])
    for (const stage of file.stages) expect(stage.image).toMatch(/^node:24(\.\d+)*-(bookworm-|trixie-)?slim(@sha256:[0-9a-f]{64})?$/)
  })

  it("builds with the full install and the project's build script", () => {
    expect(runs(build)).toContainEqual(expect.arrayContaining(["npm", "ci"]))
    expect(runs(build)).toContainEqual(["npm", "run", "build"])
    const buildScript =
      (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["build"]
    expect(buildScript).toBe("node scripts/compile.js && node scripts/bundle.js")
    // What the compiler and the bundler need is copied: both tsconfigs, the sources, the migrations and the scripts.
    const copied = copies(build).flatMap((c) => c.sources)
    expect(copied).toEqual(
      expect.arrayContaining(["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "src", "migrations", "scripts"])
    )
  })

  it("installs nothing in the runtime stage: its one RUN makes the user and the volumes' folders", () => {
    expect(runs(runtime).filter((c) => c[0] === "npm")).toEqual([])
    expect(new Set(runs(runtime).map((c) => c[0]))).toEqual(new Set(["groupadd", "useradd", "mkdir", "chown"]))
  })

  it("copies the bundled CLI and the two packages it reads from node_modules from the build stage, nothing else", () => {
    const fromBuild = copies(runtime).filter((c) => c.from === "build")
    // Every other package is inside the bundle; the hand-built image (image-layout.test.ts) runs with these alone.
    expect(fromBuild.flatMap((c) => c.sources)).toEqual([
      "/app/dist/podsync.js",
      "/app/node_modules/@electric-sql/pglite",
      "/app/node_modules/htmx.org"
    ])
    for (const name of ["@electric-sql/pglite", "htmx.org"]) {
      const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>
        scripts?: Record<string, string>
      }
      // Copied alone, they must need nothing else, and build nothing at install.
      expect(Object.keys(manifest.dependencies ?? {}), name).toEqual([])
      expect(Object.keys(manifest.scripts ?? {}).filter((s) => ["preinstall", "install", "postinstall"].includes(s)), name).toEqual([])
    }
    const fromContext = copies(runtime).filter((c) => c.from === undefined).flatMap((c) => c.sources)
    expect(fromContext.sort()).toEqual(["bin", "package.json"])
    // bin/podsync.js loads the bundle the runtime stage copies.
    expect(fs.readFileSync(path.join(repoRoot, "bin", "podsync.js"), "utf8")).toContain('import "../dist/podsync.js"')
  })

  it("runs as a numeric non-root user, set after the last RUN", () => {
    const { user } = runtimeMetadata(file, "runtime")
    expect(user).toBe("10001:10001")
    const order = runtime.instructions.map((i) => i.keyword)
    expect(order.lastIndexOf("USER")).toBeGreaterThan(order.lastIndexOf("RUN"))
    expect(runs(runtime)).toContainEqual(expect.arrayContaining(["useradd", "--uid", "10001"]))
  })

  it("checks health with node's fetch on /healthz, not curl", () => {
    const instruction = runtimeMetadata(file, "runtime").healthcheck
    if (instruction === undefined) throw new Error("no HEALTHCHECK")
    const { options, command } = healthcheck(instruction)
    expect(command?.slice(0, 2)).toEqual(["node", "-e"])
    expect(command?.[2]).toContain("fetch(")
    expect(command?.[2]).toContain("/healthz")
    expect(command?.[2]).toContain("process.env.PODSYNC_PORT")
    expect(instruction.args).not.toMatch(/curl|wget/)
    expect(options).toMatchObject({ interval: "30s", timeout: "5s", retries: "3" })
    expect(options["start-period"]).toBeDefined()
  })

  it("reads the config from PODSYNC_CONFIG and keeps data and reports in volumes, as the config says", () => {
    const env = instructionsOf(runtime, "ENV").map((i) => i.args).join(" ")
    expect(env).toContain("PODSYNC_CONFIG=/etc/podsync/podsync.yaml")
    expect(env).toContain("PODSYNC_PORT=8080")
    const volumes = runtimeMetadata(file, "runtime").volumes.flatMap((v) => execForm(v) ?? [])
    expect(volumes.sort()).toEqual(["/var/lib/podsync/data", "/var/lib/podsync/reports"])
    // config/podsync.example.yaml reads its paths, host and port from the image's ENV.
    expect(runtimeMetadata(file, "runtime").env).toMatchObject({
      PODSYNC_HOST: "0.0.0.0",
      PODSYNC_DATA_DIR: "/var/lib/podsync/data",
      PODSYNC_REPORTS_DIR: "/var/lib/podsync/reports",
      PODSYNC_MAPPINGS_DIR: "/etc/podsync/mappings"
    })
    const config = deployConfigText()
    expect(config).toContain("dataDir: ${PODSYNC_DATA_DIR:-./data}")
    expect(config).toContain("dir: ${PODSYNC_REPORTS_DIR:-./reports}")
    expect(config).toContain("host: ${PODSYNC_HOST:-127.0.0.1}")
    expect(config).toContain("port: ${PODSYNC_PORT:-8080}")
    expect(config).toContain("mappings: ${PODSYNC_MAPPINGS_DIR:-./config/mappings}/acme-shopify.csv")
    expect(instructionsOf(runtime, "EXPOSE").map((i) => i.args)).toEqual(["8080"])
  })

  it("starts the daemon as ENTRYPOINT node bin/podsync.js, CMD start, stopped by SIGTERM", () => {
    const metadata = runtimeMetadata(file, "runtime")
    expect(metadata.entrypoint && execForm(metadata.entrypoint)).toEqual(["node", "bin/podsync.js"])
    expect(metadata.cmd && execForm(metadata.cmd)).toEqual(["start"])
    expect(instructionsOf(runtime, "STOPSIGNAL").map((i) => i.args)).toEqual(["SIGTERM"])
  })

  it("bakes no secret into the image", () => {
    const declared = [
      ...instructionsOf(runtime, "ENV"),
      ...instructionsOf(runtime, "ARG"),
      ...instructionsOf(build, "ENV"),
      ...instructionsOf(build, "ARG")
    ]
      .map((i) => i.args).join(" ")
    expect(declared).not.toMatch(/KEY|SECRET|TOKEN|PASSWORD|DATABASE_URL/)
  })
})

describe("deploy/Dockerfile.dockerignore", () => {
  const lines = readDeploy("Dockerfile.dockerignore").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))

  it("leaves everything out of the context but what the stages copy, and those exist", () => {
    expect(lines[0]).toBe("*")
    const fromContext = [...copies(build), ...copies(runtime)].filter((c) => c.from === undefined).flatMap((c) => c.sources)
    for (const source of new Set(fromContext)) {
      expect(lines, source).toContain(`!${source}`)
      expect(fs.existsSync(path.join(repoRoot, source)), source).toBe(true)
    }
    expect(lines.filter((l) => l.startsWith("!")).sort()).toEqual([...new Set(fromContext)].map((s) => `!${s}`).sort())
  })
})
