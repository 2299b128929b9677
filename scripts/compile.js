// Compiles what tsconfig.build.json includes (src, migrations, bench, conformance: those present; the
// image's build stage has src and migrations) to dist/ file by file, laid out as tsc laid them out
// (dist/src/…, dist/migrations/…), with esbuild: types are stripped, not checked. The checking is
// `npm run typecheck` (tsc --noEmit over the same files and the tests), which `npm test` runs first;
// compiling them again with tsc took about 30 s of every build (and `npm ci` builds too), 2 s here.
// tsconfig.json's isolatedModules keeps every file compilable on its own.
import * as fs from "node:fs"
import * as path from "node:path"
import { build } from "esbuild"

const roots = JSON.parse(fs.readFileSync("tsconfig.build.json", "utf8")).include.filter((root) => fs.existsSync(root))
const entryPoints = roots.flatMap((root) =>
  fs.readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(root, file))
)

// What those files import from elsewhere in the repository (the bench's scenarios from test/), as tsc
// followed its imports: found in what was compiled, and compiled in turn.
const compiled = new Set()
for (let next = entryPoints; next.length > 0;) {
  await compile(next)
  for (const file of next) compiled.add(path.normalize(file))
  next = [
    ...new Set(next.flatMap((file) => {
      const source = fs.readFileSync(path.join("dist", file.replace(/\.ts$/, ".js")), "utf8")
      return [...source.matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"]+)\.js"/g)]
        .map((found) => path.normalize(path.join(path.dirname(file), `${found[1]}.ts`)))
        .filter((imported) => !compiled.has(imported) && fs.existsSync(imported))
    }))
  ]
}

async function compile(entryPoints) {
  await build({
    entryPoints,
    outdir: "dist",
    outbase: ".",
    bundle: false,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    tsconfig: "tsconfig.build.json",
    logLevel: "warning"
  })
}
