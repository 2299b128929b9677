/** One request as the test saw it: sent when its slot was granted, answered when `use` ended. */
export interface TracedRequest {
  readonly sentAt: number
  readonly answeredAt: number
}

/**
 * The most requests the service could have seen in one window of `windowMs`, whatever the
 * arrival of each request inside [sentAt, answeredAt]. A window [x, x + W] can hold request i
 * iff sentAt_i <= x + W and answeredAt_i >= x; the count changes only at x = answeredAt_j or
 * x = sentAt_j − W, so those are the windows to look at.
 */
export const mostArrivalsPossibleInWindow = (trace: ReadonlyArray<TracedRequest>, windowMs: number): number => {
  const starts = new Set<number>()
  for (const request of trace) {
    starts.add(request.answeredAt)
    starts.add(request.sentAt - windowMs)
  }
  let most = 0
  for (const x of starts) {
    let count = 0
    for (const request of trace) if (request.sentAt <= x + windowMs && request.answeredAt >= x) count++
    most = Math.max(most, count)
  }
  return most
}
