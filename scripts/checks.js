// `npm test`'s static checks, run side by side: the type check, the layers, the lint and the format
// check. Each is one single-threaded process, so on two cores running them together takes about as
// long as the type check alone instead of the sum. Each check's output is printed whole, in this
// order, once it ends; the script fails if any check does, and names which.
import { spawn } from "node:child_process"

// package.json's own scripts, so each command and its options are written once, there.
const CHECKS = ["typecheck", "layers", "lint", "format:check"]

const run = (name) =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn("npm", ["run", "--silent", name], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: "0" }
    })
    const output = []
    child.stdout.on("data", (chunk) => output.push(chunk))
    child.stderr.on("data", (chunk) => output.push(chunk))
    child.on("error", (error) => resolve({ name, code: 1, output: [Buffer.from(`${error.message}\n`)], ms: Date.now() - started }))
    child.on("close", (code) => resolve({ name, code: code ?? 1, output, ms: Date.now() - started }))
  })

const results = await Promise.all(CHECKS.map(run))
for (const { name, code, output, ms } of results) {
  process.stdout.write(`> ${name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${(ms / 1000).toFixed(1)} s\n`)
  process.stdout.write(Buffer.concat(output))
}
const failed = results.filter((r) => r.code !== 0).map((r) => r.name)
if (failed.length > 0) {
  process.stderr.write(`checks failed: ${failed.join(", ")}\n`)
  process.exit(1)
}
