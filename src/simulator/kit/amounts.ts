/** Money and quantities as the simulators' stores keep them: decimal strings on the wire, cents and sums inside. */

/** `"24.50"` → 2450. */
export const centsOf = (amount: string): number => Math.round(Number(amount) * 100)

/** 2450 → `"24.50"`. */
export const decimalOf = (cents: number): string => (cents / 100).toFixed(2)

/** The units in `lines` that `matches` picks (one order line's share of its fulfillments or refunds). */
export const quantityOf = <L extends { readonly quantity: number }>(lines: ReadonlyArray<L>, matches: (line: L) => boolean): number =>
  lines.filter(matches).reduce((sum, l) => sum + l.quantity, 0)
