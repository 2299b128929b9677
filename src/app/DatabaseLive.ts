import { Option } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { DbLive } from "../db/Db.js"

/** The configured database: PostgreSQL at `database.url`, else the embedded one under `dataDir`. */
export const dbLayer = (config: AppConfig) => DbLive({ url: Option.fromNullable(config.database.url), dataDir: config.dataDir })
