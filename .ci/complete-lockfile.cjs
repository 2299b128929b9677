#!/usr/bin/env node
// Usage (after changing dependencies): regenerate the lock in an empty folder
// (npm install --package-lock-only --ignore-scripts), run `npm ci --dry-run`
// in a clone, save its "Missing: X@ from lock file" names one per line, then
//   node .ci/complete-lockfile.cjs package-lock.json missing.txt
// Adds lockfile entries for other-platform optional packages that the local
// registry mirror lacks at the wanted version, with their os/cpu/libc, so
// `npm ci` sees a complete lock and skips them on this platform.
const fs = require("fs")
const file = process.argv[2]
const lock = JSON.parse(fs.readFileSync(file, "utf8"))
const missing = fs.readFileSync(process.argv[3], "utf8").split("\n").filter(Boolean)
const parents = Object.entries(lock.packages)
for (const name of missing) {
  const parent = parents.find(([, p]) => p.optionalDependencies && p.optionalDependencies[name])
  if (!parent) {
    console.error("no parent for", name)
    continue
  }
  const version = parent[1].optionalDependencies[name]
  const plat = name.split("/")[1].replace(/^(rollup|msgpackr-extract)-/, "")
  const os = ["darwin", "linux", "win32", "android", "freebsd", "openbsd", "openharmony"].find((o) => plat.startsWith(o))
  const rest = plat.slice(os.length + 1)
  const cpu = rest.startsWith("arm64") ? "arm64" : rest.startsWith("arm") ? "arm" : rest.startsWith("x64") ?
    "x64"
    : rest.startsWith("ia32")
    ? "ia32"
    : rest.split("-")[0]
  const entry = { version, cpu: [cpu], license: "MIT", optional: true, os: [os] }
  if (rest.includes("musl")) entry.libc = ["musl"]
  else if (os === "linux" && (rest.includes("gnu") || rest.includes("glibc"))) entry.libc = ["glibc"]
  lock.packages[`node_modules/${name}`] = entry
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + "\n")
