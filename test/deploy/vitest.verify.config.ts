import * as path from "node:path"
import { defineConfig } from "vitest/config"

/**
 * The one-off image verification (deploy/verify-image.sh): not part of `npm
 * test`, because it installs and compiles the whole project twice over and
 * needs a PostgreSQL server. Runs test/deploy/*.verify.ts only.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, "../.."),
  test: {
    include: ["test/deploy/**/*.verify.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 1, minForks: 1 } }
  }
})
