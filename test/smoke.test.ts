import { describe, expect, it } from "vitest"

describe("skeleton", () => {
  it("has a package name", async () => {
    const pkg = await import("../package.json", { with: { type: "json" } })
    expect(pkg.default.name).toBe("podsync")
  })
})
