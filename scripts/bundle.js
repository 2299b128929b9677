// Bundles the compiled CLI (dist/src/main.js, from `tsc`) with its dependencies into one ES module,
// dist/podsync.js, which bin/podsync.js runs. Node then resolves and reads one file instead of about
// 2,200 (effect's, kysely's, graphql's, undici's and our own modules): a `podsync` command starts in
// less than half the time.
//
// Left out of the bundle, loaded from node_modules at run time:
// - @electric-sql/pglite finds its WebAssembly and data files next to its own module;
// - pg-native, bufferutil and utf-8-validate are optional native add-ons, required only when installed.
// htmx.org is not imported: the console reads its file from node_modules.
import * as fs from "node:fs"
import { build } from "esbuild"

const outfile = "dist/podsync.js"

await build({
  entryPoints: ["dist/src/main.js"],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["@electric-sql/pglite", "pg-native", "bufferutil", "utf-8-validate"],
  // The CommonJS packages inside (pg, nodemailer, prom-client, …) require Node's own modules.
  banner: {
    js: 'import { createRequire as __podsyncCreateRequire } from "node:module";\nconst require = __podsyncCreateRequire(import.meta.url);'
  },
  // ASCII only, and no comments (the packages' comments are not): V8 holds a source with a single
  // character past Latin-1 at two bytes a character, and the daemon keeps its source for its life.
  // Names stay whole, so a stack trace still reads.
  charset: "ascii",
  minifyWhitespace: true,
  // The packages' license notices, in dist/podsync.js.LEGAL.txt.
  legalComments: "external",
  logLevel: "warning"
})

// What esbuild cannot escape (a regular expression literal, a tagged template's raw text) must be
// written with \u escapes in our sources.
const source = fs.readFileSync(outfile, "latin1")
const at = source.search(/[^\x00-\x7f]/)
if (at !== -1) {
  console.error(`${outfile} is not ASCII at offset ${at}: …${source.slice(Math.max(0, at - 80), at + 20)}…`)
  console.error("write that character as a \\u escape in its source (a regular expression or html`…` template)")
  process.exit(1)
}
