import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { processCpuMs } from "./support/fileCpu.js"

// The summary's CPU per file (slowestFiles.ts) counts a file's worker and the processes it started.
describe.runIf(process.platform === "linux")("processCpuMs", () => {
  it("counts this process's CPU and that of a child once it ended", () => {
    const before = processCpuMs()!
    // A child that spins for 400 ms of its own CPU.
    const child = spawnSync(process.execPath, [
      "-e",
      "const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) < 400_000) {}"
    ])
    expect(child.status).toBe(0)
    const afterChild = processCpuMs()!
    expect(afterChild - before).toBeGreaterThanOrEqual(400)
    // And this process's own: 200 ms spun here.
    const t = process.cpuUsage()
    while (process.cpuUsage(t).user + process.cpuUsage(t).system < 200_000) { /* spin */ }
    expect(processCpuMs()! - afterChild).toBeGreaterThanOrEqual(190)
  })
})
