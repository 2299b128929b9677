// `npm test`: the static checks (scripts/checks.js: types, layers, lint, format) side by side with the
// build and the test suite (vitest run, with any arguments given to `npm test --`). The suite's first
// minute is its slowest end-to-end files waiting on what they drive, CPU the checks use instead of
// running first, alone, for half a minute. The suite's output streams as it runs; the checks' is held
// and printed whole after it. Fails if either fails, and says which.
import { spawn } from "node:child_process"

const run = (command, args, capture) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" })
    const output = []
    if (capture) {
      child.stdout.on("data", (chunk) => output.push(chunk))
      child.stderr.on("data", (chunk) => output.push(chunk))
    }
    child.on("error", (error) => resolve({ code: 1, output: [Buffer.from(`${error.message}\n`)] }))
    child.on("close", (code) => resolve({ code: code ?? 1, output }))
  })

const checks = run(process.execPath, ["scripts/checks.js"], true)
const suite = run("npm", ["run", "--silent", "build"], false).then((build) =>
  build.code === 0 ? run("npx", ["--no", "vitest", "run", ...process.argv.slice(2)], false) : { code: build.code, output: [] }
)
const [checked, tested] = await Promise.all([checks, suite])
process.stdout.write(`\n${Buffer.concat(checked.output)}`)
const failed = [...(checked.code === 0 ? [] : ["checks"]), ...(tested.code === 0 ? [] : ["build or tests"])]
if (failed.length > 0) {
  process.stderr.write(`npm test failed: ${failed.join(", ")}\n`)
  process.exit(1)
}
