import { expect } from "vitest"

/**
 * Runs a simulator standalone (as `podsync simulate` does), checks the one line it prints says where
 * it listens on 127.0.0.1, runs `check` against it, and closes it.
 */
export const listensStandalone = async <S extends { readonly url: string; readonly close: () => Promise<void> }>(
  name: string,
  run: (options: { readonly log: (line: string) => void }) => Promise<S>,
  check: (running: S) => Promise<void> | void = () => {}
) => {
  const lines: Array<string> = []
  const running = await run({ log: (line) => lines.push(line) })
  try {
    expect(lines).toEqual([`${name} listening on ${running.url}`])
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    await check(running)
  } finally {
    await running.close()
  }
}
