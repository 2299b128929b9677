import { expect } from "vitest"

/** The value of one sample line of a Prometheus text exposition, or undefined when absent. */
export const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** Each series of the exposition `text` has its value (`undefined`: the series is absent). */
export const expectSamples = (text: string, expected: Readonly<Record<string, number | undefined>>) => {
  for (const [series, value] of Object.entries(expected)) expect(sample(text, series), series).toBe(value)
}
