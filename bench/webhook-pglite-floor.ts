// The memory floor of the webhook-ingest bench: a bare PGlite instance in a process of its own,
// with nothing of podsync loaded. Opens DATA_DIR (or an empty in-memory database), runs QUERY if
// given, and prints one JSON line: RSS and heap after opening and after the query. With SETTINGS
// "podsync", PGlite runs with the settings podsync gives it (src/db/Db.ts, EMBEDDED_SETTINGS:
// copied here so that this process loads nothing else).
//
//   node dist/bench/webhook-pglite-floor.js [DATA_DIR] [QUERY] [default|podsync]
import { PGlite } from "@electric-sql/pglite"

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024)
const memory = () => {
  const usage = process.memoryUsage()
  return {
    rssMb: megabytes(usage.rss),
    heapUsedMb: megabytes(usage.heapUsed),
    externalMb: megabytes(usage.external),
    arrayBuffersMb: megabytes(usage.arrayBuffers)
  }
}

const PODSYNC_SETTINGS = ["shared_buffers=16MB", "work_mem=2MB", "maintenance_work_mem=16MB", "temp_buffers=2MB"]

const [dataDir, query, settings] = process.argv.slice(2)
const before = memory()
const db = await PGlite.create(
  dataDir === undefined || dataDir === "" ? undefined : dataDir,
  settings === "podsync" ? { startParams: [...PGlite.defaultStartParams, ...PODSYNC_SETTINGS.flatMap((s) => ["-c", s])] } : {}
)
await db.query("select 1")
const opened = memory()
if (query !== undefined) await db.query(query)
const queried = memory()
await db.close()
console.log(JSON.stringify({ node: before, opened, queried }))
