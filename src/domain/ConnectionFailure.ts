/**
 * What a failed connection says in words, from Node's socket error codes (pure): nothing at the
 * address takes connections, the host name is unknown, or the network cannot reach it. Anything
 * else (a timeout, a reset) is `undefined`, for the caller's own words.
 */
export const connectionRefusal = (error: unknown): string | undefined => {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code
  return code === "ECONNREFUSED"
    ? "connection refused"
    : code === "ENOTFOUND" || code === "EAI_AGAIN"
    ? "no such host"
    : code === "EHOSTUNREACH" || code === "ENETUNREACH"
    ? "host unreachable"
    : undefined
}
