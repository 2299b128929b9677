// `npm run bench [-- NAME... [-- OPTIONS]]`: runs the named benchmarks (all of them when none is
// named), each as `node dist/bench/<NAME>.js` in a process of its own, one after the other, so
// that one's memory and CPU time never count in another's figures. Each writes its own
// bench/results/<NAME>.json. Options after a second `--` go to every benchmark run.
//
//   npm run bench -- webhook-ingest
//   npm run bench -- webhook-ingest -- --databases pglite --quick
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const BENCHMARKS = ["budget", "console", "outage", "pipeline", "recovery", "rehearse", "webhook-ingest"] as const

const here = path.dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const split = args.indexOf("--")
const names = split === -1 ? args : args.slice(0, split)
const options = split === -1 ? [] : args.slice(split + 1)
const unknown = names.filter((name) => !(BENCHMARKS as ReadonlyArray<string>).includes(name))
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}; the benchmarks are ${BENCHMARKS.join(", ")}`)
  process.exit(2)
}
let failed = 0
for (const name of names.length === 0 ? BENCHMARKS : names) {
  console.log(`== ${name}`)
  const run = spawnSync(process.execPath, [path.join(here, `${name}.js`), ...options], { stdio: "inherit" })
  if (run.status !== 0) {
    console.error(`${name} failed (exit ${run.status ?? run.signal})`)
    failed++
  }
}
process.exit(failed === 0 ? 0 : 1)
