import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { migrations } from "../../migrations/index.js"

/**
 * The migrator applies what migrations/index.ts lists (the bundled daemon reads no folder): a
 * migration file left out of the list would never be applied, so the list must be the folder.
 */
describe("migrations/index.ts", () => {
  const folder = path.resolve("migrations")
  const files = fs.readdirSync(folder).filter((f) => f.endsWith(".ts") && f !== "index.ts").sort()

  it("lists every migration file of the folder, by its name, in the order they apply", () => {
    expect(files.length).toBeGreaterThan(0)
    expect(Object.keys(migrations)).toEqual(files.map((f) => f.replace(/\.ts$/, "")))
  })

  it("gives each name that file's own up and down", async () => {
    for (const file of files) {
      const own = (await import(pathToFileURL(path.join(folder, file)).href)) as { up: unknown; down?: unknown }
      const listed = migrations[file.replace(/\.ts$/, "")]
      expect(listed?.up, file).toBe(own.up)
      expect(listed?.down, file).toBe(own.down)
    }
  })
})
