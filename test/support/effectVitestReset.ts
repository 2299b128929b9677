import { it } from "@effect/vitest"

/**
 * Runs before every test file (vitest's setupFiles). `layer()` of @effect/vitest 0.30 assigns its own
 * `effect`, `scoped`, `layer`, `prop` and `flakyTest` onto the module's shared `it` (Object.assign on
 * vitest's `it`), so a plain `it.effect` registered after a `layer()` block ran in that block's runtime,
 * TestClock included. Where one worker runs several files with one module registry (isolate: false,
 * see vitest.config.ts) that carried a finished file's clock into the next file of the
 * worker: the methods as first loaded are kept here and put back before each file.
 */
const PRISTINE = Symbol.for("podsync.test.effectVitestMethods")
type Methods = Pick<typeof it, "effect" | "scoped" | "live" | "scopedLive" | "layer" | "prop" | "flakyTest">
const holder = globalThis as { [PRISTINE]?: Methods }
const pristine: Methods = holder[PRISTINE] ??= {
  effect: it.effect,
  scoped: it.scoped,
  live: it.live,
  scopedLive: it.scopedLive,
  layer: it.layer,
  prop: it.prop,
  flakyTest: it.flakyTest
}

/** Puts @effect/vitest's `it` methods back as they were first loaded in this worker. */
export const restoreEffectVitest = () => {
  Object.assign(it, pristine)
}

restoreEffectVitest()
