import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"

const packageJson = JSON.parse(fs.readFileSync("package.json", "utf8")) as { readonly allowScripts?: Record<string, boolean> }
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")) as {
  readonly packages: Record<string, { readonly hasInstallScript?: boolean }>
}

describe("installing podsync", () => {
  it("declares, for every dependency with an install script, whether it may run (npm ci warns about each one it does not)", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([where]) => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length))
    expect(withScripts.length).toBeGreaterThan(0)
    expect(withScripts.filter((name) => packageJson.allowScripts?.[name] === undefined)).toEqual([])
  })

  it("keeps a seller's own configuration and the console's backups of mapping files out of git", () => {
    const ignored = spawnSync("git", ["check-ignore", "--no-index", "config/podsync.yaml", "config/mappings/acme-shopify.csv.bak"], {
      encoding: "utf8"
    })
    expect(ignored.stdout.trim().split("\n")).toEqual(["config/podsync.yaml", "config/mappings/acme-shopify.csv.bak"])
    // The example and the mapping files themselves stay tracked.
    expect(spawnSync("git", ["check-ignore", "--no-index", "config/podsync.example.yaml", "config/mappings/acme-shopify.csv"]).status).toBe(
      1
    )
  })
})
