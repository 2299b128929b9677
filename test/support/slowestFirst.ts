import * as path from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { readDurations } from "./slowestFiles.js"

/**
 * Starts the slowest files first (by their recorded times, test/durations.json), so that the
 * two workers do not end the run on a long end-to-end file started last; a file with no recorded
 * time (new) counts as the median. On a clean clone vitest's own cache is empty, so its default order
 * (file size) left several of the slowest files to the end.
 */
export default class SlowestFirst extends BaseSequencer {
  override sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const durations = readDurations()
    const root = process.cwd()
    const known = Object.values(durations).sort((a, b) => a - b)
    const unknown = known[Math.floor(known.length / 2)] ?? 0
    const timeOf = (spec: TestSpecification) => durations[path.relative(root, spec.moduleId)] ?? unknown
    return Promise.resolve([...files].sort((a, b) => timeOf(b) - timeOf(a)))
  }
}
