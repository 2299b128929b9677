/**
 * What a newcomer reads while going live: the README, deploy/README.md and the example config
 * speak of the same things by the same names, and every link they give leads somewhere.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const read = (file: string) => fs.readFileSync(file, "utf8")
const variables = (text: string) => new Set([...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!).filter((name) => name !== "NAME"))
const assigned = (text: string) => new Set([...text.matchAll(/^#?\s*([A-Z0-9_]+)=/gm)].map((m) => m[1]!))

describe("the going-live documents", () => {
  it("use one set of environment names: every variable deploy/ sets or reads is the example's", () => {
    const example = variables(read("config/podsync.example.yaml"))
    // Deploy-only: the compose and unit wiring around podsync, not podsync's configuration.
    const deployOnly = new Set([
      "PODSYNC_DOMAIN",
      "POSTGRES_PASSWORD",
      "PODSYNC_UPSTREAM",
      "PODSYNC_CONSOLE_USER",
      "PODSYNC_CONSOLE_PASSWORD_HASH"
    ])
    const deploy = [
      ...variables(read("deploy/kubernetes/configmap.yaml")),
      ...assigned(read("deploy/.env.example")),
      ...assigned(read("deploy/systemd/podsync.env.example"))
    ]
    expect(deploy.filter((name) => !example.has(name) && !deployOnly.has(name))).toEqual([])
    // And the example's store credentials are named per store, as deploy/ names them.
    expect(example.has("ACME_SHOPIFY_TOKEN")).toBe(true)
    expect(example.has("SHOPIFY_TOKEN")).toBe(false)
  })

  it.each(["README.md", "deploy/README.md", ...fs.readdirSync("docs").map((f) => `docs/${f}`).filter((f) => f.endsWith(".md"))])(
    "%s links only to files that are in the repository",
    (file) => {
      const links = [...read(file).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
        .filter((link) => !/^[a-z]+:/.test(link) && !link.startsWith("#"))
        .map((link) => link.split("#")[0]!)
      const missing = links.filter((link) => !fs.existsSync(path.join(path.dirname(file), link)))
      expect(missing).toEqual([])
      // ARCHITECTURE.md is the developers' shared design, not shipped with podsync.
      expect(read(file)).not.toMatch(/ARCHITECTURE\.md/)
    }
  )
})
