// Bundles the compiled CLI (dist/src/main.js, from `tsc`) with its dependencies into one ES module,
// dist/podsync.js, which bin/podsync.js runs. Node then resolves and reads one file instead of about
// 2,200 (effect's, kysely's, graphql's, undici's and our own modules): every `podsync` command starts
// in well under half the time.
//
// Left out of the bundle, loaded from node_modules at run time:
// - @electric-sql/pglite finds its WebAssembly and data files next to its own module;
// - pg-native, bufferutil and utf-8-validate are optional native add-ons, required only when installed.
// htmx.org is not imported: the console reads its file from node_modules.
import { build } from "esbuild"

await build({
  entryPoints: ["dist/src/main.js"],
  outfile: "dist/podsync.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["@electric-sql/pglite", "pg-native", "bufferutil", "utf-8-validate"],
  // The CommonJS packages inside (pg, nodemailer, prom-client, …) require Node's own modules.
  banner: {
    js: 'import { createRequire as __podsyncCreateRequire } from "node:module";\nconst require = __podsyncCreateRequire(import.meta.url);'
  },
  logLevel: "warning"
})
