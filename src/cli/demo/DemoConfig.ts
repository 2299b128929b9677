import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { isSeq, parseDocument } from "yaml"
import type { AppConfig } from "../../config/AppConfig.js"
import { parseConfig } from "../../config/loadConfig.js"
import { type DataDirLockedError, lockDataDir } from "../../db/DataDirLock.js"
import { CliFailure } from "../AppRuntime.js"

/**
 * The demo's configuration: config/demo.yaml (the Shopify store alone) or
 * config/demo-all.yaml (one store of each platform) as shipped with podsync,
 * with the in-process simulators' addresses and a free daemon port
 * substituted through the environment defaults the files already have
 * (POD_BASE_URL, SHOPIFY_BASE_URL, WOO_URL, ETSY_BASE_URL, FEED_BASE_URL,
 * PODSYNC_DEMO_PORT), its own data folder, and the POD webhooks pointed back
 * at the daemon.
 */

/** Which demo: the Shopify store alone, or one store of each platform run together. */
export type DemoSetup = "shopify" | "all-platforms"

const configFiles: Readonly<Record<DemoSetup, string>> = { shopify: "demo.yaml", "all-platforms": "demo-all.yaml" }

/** The store simulators' addresses by platform (the JSON feed's: its contract base), as far as the demo runs them. */
export interface StoreSimulatorUrls {
  readonly shopify?: string
  readonly woocommerce?: string
  readonly etsy?: string
  readonly jsonfeed?: string
}

/** The environment names the demo configurations take each store simulator's address from. */
const storeUrlVariables: Readonly<Record<keyof StoreSimulatorUrls, string>> = {
  shopify: "SHOPIFY_BASE_URL",
  woocommerce: "WOO_URL",
  etsy: "ETSY_BASE_URL",
  jsonfeed: "FEED_BASE_URL"
}

/** The folder podsync is installed in (it holds config/demo.yaml), found from this module up. */
export const installFolder = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (fs.existsSync(path.join(dir, "config", "demo.yaml")) && fs.existsSync(path.join(dir, "package.json"))) return dir
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error("config/demo.yaml is missing from the podsync installation")
    dir = parent
  }
}

export interface DemoConfigInput {
  readonly setup: DemoSetup
  readonly podUrl: string
  readonly storeUrls: StoreSimulatorUrls
  readonly port: number
  /** Where the demo's own alert receiver listens (config/demo.yaml's alert channel). */
  readonly alertsUrl?: string
  /** Absolute; overrides demo.yaml's dataDir. */
  readonly dataDir?: string
  /** Absolute; overrides demo.yaml's reports.dir. */
  readonly reportsDir?: string
  readonly env?: NodeJS.ProcessEnv
}

export const demoConfigFile = (setup: DemoSetup = "shopify") => path.join(installFolder(), "config", configFiles[setup])

/**
 * Decodes the setup's file with the demo's substitutions. Paths of the demo's own
 * files (mappings) are taken relative to the installation, so `podsync demo`
 * works from any directory; dataDir and reports stay relative to the
 * working directory, as in every configuration.
 */
export const demoConfig = (input: DemoConfigInput): Effect.Effect<AppConfig, CliFailure> =>
  Effect.suspend(() => {
    const root = Either.try({ try: installFolder, catch: (error) => (error instanceof Error ? error.message : String(error)) })
    if (Either.isLeft(root)) return Effect.fail(new CliFailure({ message: root.left }))
    return decodeDemoConfig(root.right, input)
  })

const decodeDemoConfig = (root: string, input: DemoConfigInput): Effect.Effect<AppConfig, CliFailure> =>
  Effect.suspend(() => {
    const file = path.join(root, "config", configFiles[input.setup])
    const document = parseDocument(fs.readFileSync(file, "utf8"))
    if (input.dataDir !== undefined) document.setIn(["dataDir"], input.dataDir)
    if (input.reportsDir !== undefined) document.setIn(["reports", "dir"], input.reportsDir)
    const stores = document.get("stores")
    const storeCount = isSeq(stores) ? stores.items.length : 0
    for (let i = 0; i < storeCount; i++) {
      const mappings = document.getIn(["stores", i, "mappings"])
      if (typeof mappings === "string") document.setIn(["stores", i, "mappings"], path.resolve(root, mappings))
    }
    if (!document.hasIn(["pod", "webhooks"])) {
      // Signed with the API client secret and sent with the API client key, as the service does: nothing more to configure.
      document.setIn(["pod", "webhooks"], document.createNode({ publicUrl: `http://127.0.0.1:${input.port}/webhooks/pod` }))
    }
    const env = input.env ?? process.env
    const storeUrls = Object.entries(input.storeUrls).flatMap(([platform, url]) =>
      url === undefined ? [] : [[storeUrlVariables[platform as keyof StoreSimulatorUrls], url] as const]
    )
    return parseConfig(String(document), file, {
      ...env,
      POD_BASE_URL: input.podUrl,
      ...Object.fromEntries(storeUrls),
      PODSYNC_DEMO_PORT: String(input.port),
      ...(input.alertsUrl === undefined ? {} : { PODSYNC_DEMO_ALERTS_URL: input.alertsUrl })
    }).pipe(Effect.mapError((error) => new CliFailure({ message: error.message })))
  })

/** What PGlite and the data-dir lock leave in a data folder: anything else is not ours to delete. */
const looksLikeOurs = (dir: string): boolean => {
  const entries = fs.readdirSync(dir)
  return entries.length === 0 || entries.includes("PG_VERSION") || entries.includes("podsync.lock")
}

/**
 * Wipes the demo's data folder so each demo starts fresh. Refuses when another
 * podsync process holds it (its lock) or when the folder holds something
 * other than a podsync database.
 */
export const wipeDataDir = (dir: string): Effect.Effect<void, CliFailure | DataDirLockedError> =>
  Effect.gen(function*() {
    if (!fs.existsSync(dir)) return
    if (!looksLikeOurs(dir)) {
      return yield* Effect.fail(
        new CliFailure({
          message:
            `${dir} holds files that are not a podsync database; the demo wipes its data folder at start, so choose another (--data-dir) or empty it`
        })
      )
    }
    // Taking the lock (then letting it go) fails when a live podsync holds the folder.
    yield* Effect.scoped(lockDataDir(dir))
    fs.rmSync(dir, { recursive: true, force: true })
  })
