import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import { restoreEffectVitest } from "./support/effectVitestReset.js"

// What the next file in a shared worker (vitest.config.ts, isolate: false) meets after a file with a
// `layer()` block: the block has rewritten the shared `it`, and the setup file puts it back.
layer(Layer.empty)("a layer() block that moves its TestClock", (it) => {
  it.effect("sets the clock far ahead", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1e12)
      expect(yield* Clock.currentTimeMillis).toBe(1e12)
    }))
})

describe("a plain it.effect after the setup file's restore", () => {
  restoreEffectVitest()
  it.effect("gets a TestClock of its own, at the epoch", () =>
    Effect.gen(function*() {
      expect(yield* Clock.currentTimeMillis).toBe(0)
    }))
})
