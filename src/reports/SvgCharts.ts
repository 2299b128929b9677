/**
 * Small inline SVG bar charts, pure: no library, no script, nothing fetched,
 * so a report opens offline and prints. Values set only the geometry; every
 * bar carries its exact label as text.
 */

export const CHART_COLORS = {
  flow: "#3b6fd8",
  revenue: "#5b8def",
  cost: "#e08a2c",
  margin: "#2e9d5b",
  loss: "#d64545"
} as const

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)

export interface Bar {
  readonly label: string
  readonly value: number
  readonly valueLabel: string
  readonly color: string
}

const LABEL_WIDTH = 190
const VALUE_WIDTH = 120
const ROW = 26
const BAR = 16

/** One bar per row, from a zero line (negative values go left of it). */
export const horizontalBarChart = (title: string, bars: ReadonlyArray<Bar>, width = 720): string => {
  const plot = width - LABEL_WIDTH - VALUE_WIDTH
  const max = Math.max(0, ...bars.map((b) => b.value))
  const min = Math.min(0, ...bars.map((b) => b.value))
  const span = max - min || 1
  const zero = LABEL_WIDTH + ((0 - min) / span) * plot
  const height = bars.length * ROW + 34
  const rows = bars.map((bar, i) => {
    const y = 28 + i * ROW
    const length = (Math.abs(bar.value) / span) * plot
    const x = bar.value >= 0 ? zero : zero - length
    return [
      `<text class="label" x="${LABEL_WIDTH - 8}" y="${y + BAR - 3}" text-anchor="end">${escapeHtml(bar.label)}</text>`,
      `<rect class="bar" x="${x.toFixed(1)}" y="${y}" width="${
        Math.max(length, bar.value === 0 ? 0 : 1).toFixed(1)
      }" height="${BAR}" fill="${bar.color}"><title>${escapeHtml(`${bar.label}: ${bar.valueLabel}`)}</title></rect>`,
      `<text class="value" x="${(bar.value >= 0 ? x + length : zero) + 6}" y="${y + BAR - 3}">${escapeHtml(bar.valueLabel)}</text>`
    ].join("")
  })
  return [
    `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    `<text class="title" x="0" y="16">${escapeHtml(title)}</text>`,
    ...rows,
    `<line class="axis" x1="${zero.toFixed(1)}" y1="24" x2="${zero.toFixed(1)}" y2="${height - 4}" stroke="#999" />`,
    "</svg>"
  ].join("\n")
}

export interface BarGroup {
  readonly label: string
  readonly bars: ReadonlyArray<Bar>
}

/** Groups of bars (revenue, cost, margin per store or SKU), one group per block of rows, with a legend. */
export const groupedBarChart = (title: string, groups: ReadonlyArray<BarGroup>, width = 720): string => {
  const plot = width - LABEL_WIDTH - VALUE_WIDTH
  const values = groups.flatMap((g) => g.bars.map((b) => b.value))
  const max = Math.max(0, ...values)
  const min = Math.min(0, ...values)
  const span = max - min || 1
  const zero = LABEL_WIDTH + ((0 - min) / span) * plot
  const series = groups[0]?.bars ?? []
  const legend = series.map((b, i) =>
    `<rect x="${LABEL_WIDTH + i * 120}" y="26" width="12" height="12" fill="${b.color}" /><text class="legend" x="${
      LABEL_WIDTH + i * 120 + 16
    }" y="37">${escapeHtml(b.label)}</text>`
  ).join("")
  let y = 50
  const blocks = groups.map((group) => {
    const top = y
    const bars = group.bars.map((bar, i) => {
      const by = top + i * (BAR + 2)
      const length = (Math.abs(bar.value) / span) * plot
      const x = bar.value >= 0 ? zero : zero - length
      return `<rect class="bar" x="${x.toFixed(1)}" y="${by}" width="${
        Math.max(length, bar.value === 0 ? 0 : 1).toFixed(1)
      }" height="${BAR}" fill="${bar.color}"><title>${escapeHtml(`${group.label} ${bar.label}: ${bar.valueLabel}`)}</title></rect>` +
        `<text class="value" x="${(bar.value >= 0 ? x + length : zero) + 6}" y="${by + BAR - 3}">${escapeHtml(bar.valueLabel)}</text>`
    }).join("")
    y += group.bars.length * (BAR + 2) + 14
    return `<text class="label" x="${LABEL_WIDTH - 8}" y="${top + BAR - 3}" text-anchor="end">${escapeHtml(group.label)}</text>${bars}`
  })
  const height = y + 4
  return [
    `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    `<text class="title" x="0" y="16">${escapeHtml(title)}</text>`,
    legend,
    ...blocks,
    `<line class="axis" x1="${zero.toFixed(1)}" y1="46" x2="${zero.toFixed(1)}" y2="${height - 4}" stroke="#999" />`,
    "</svg>"
  ].join("\n")
}
