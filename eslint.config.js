// ESLint flat config: mechanical checks that catch real defects, not style (dprint owns layout).
// typescript-eslint's `recommended` only, not the type-checked set: it parses without a TypeScript
// program, so `eslint .` stays fast on two cores; `tsc --noEmit` already does the type checking.
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    // What is linted: src, test, bench and conformance. Migrations are left out: Kysely's
    // migration convention is `Kysely<any>` (a migration must not depend on today's schema type).
    ignores: ["dist/**", "bin/**", "migrations/**", ".ci/**", "deploy/**", "docs/**", "config/**"]
  },
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      // Warn, not error: the count is being brought down. Each `!` is an unchecked claim.
      "@typescript-eslint/no-non-null-assertion": "warn",
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrorsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_"
      }],
      // The code already marks type-only imports (`import type` or an inline `type`); keep it so,
      // since erasing an import decides whether a module's side effects run. Either style passes.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // `x == null` / `x != null` is the house idiom for "null or undefined" (decoded JSON from
      // the stores and the POD service carries both); every other loose comparison is an error.
      eqeqeq: ["error", "always", { null: "ignore" }]
    }
  },
  {
    // Tests and benchmarks read the simulators' untyped JSON answers through small helpers that
    // return `any`; production code (src, including the simulators) and conformance may not.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off"
    }
  },
  {
    // The daemon's own code is where an unchecked `!` can take a seller's order down; tests (an
    // assertion failing is the point), benchmarks, the conformance tool and the simulators (the
    // outside world's stand-ins) are left to their authors.
    files: ["test/**/*.ts", "bench/**/*.ts", "conformance/**/*.ts", "src/simulator/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off"
    }
  }
)
