import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/**
 * The raw-HTTP pieces every simulator's server is built from. Plain node:http rather than a framework
 * because faults must be able to reset or drop the socket mid-request.
 */

/** The body as text, or null when it is larger than `limit` (the rest is read and discarded so the socket stays usable). */
export const readBody = (req: IncomingMessage, limit: number): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) chunks.push(chunk)
    })
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Ends the connection without an answer: an RST where the platform allows it, else a plain close. */
export const dropConnection = (res: ServerResponse): void => {
  res.socket?.resetAndDestroy?.()
  res.socket?.destroy()
}

/** Whether a path is under the simulator's own `/__sim` admin API. */
export const isAdminPath = (pathname: string): boolean => pathname === "/__sim" || pathname.startsWith("/__sim/")

export interface AdminReply {
  readonly status: number
  readonly body: unknown
}

/**
 * Serves one `/__sim/` request: the body is read as JSON (empty or too large counts as `{}`), a body
 * that is not JSON is a 400, and the admin handler's answer is sent with the simulator's own JSON sender.
 */
export const serveAdmin = async (
  req: IncomingMessage,
  maxBodyBytes: number,
  handle: (method: string, pathname: string, body: unknown) => Promise<AdminReply>,
  send: (status: number, body: unknown) => void
): Promise<void> => {
  const raw = await readBody(req, maxBodyBytes)
  let parsed: unknown = {}
  if (raw !== null && raw.trim().length > 0) {
    try {
      parsed = JSON.parse(raw)
    } catch {
      return send(400, { error: "body must be JSON" })
    }
  }
  const answer = await handle(req.method ?? "GET", new URL(req.url ?? "/", "http://simulator").pathname, parsed)
  send(answer.status, answer.body)
}

/**
 * A node:http server around `handle`. A handler that throws is answered with `failure` (500) when
 * nothing was sent yet; after the headers are out the only honest answer is to drop the connection.
 */
export const serverFor = (
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  failure: (res: ServerResponse, message: string) => void
): Server =>
  createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return dropConnection(res)
      failure(res, error instanceof Error ? error.message : String(error))
    })
  })

/** What a simulator's server is made of besides its config. */
export interface SimulatorServer<C extends { readonly maxBodyBytes: number }> {
  /** The simulator's `/__sim/` handler (see `serveAdmin`). */
  readonly admin: (config: C, method: string, pathname: string, body: unknown) => Promise<AdminReply>
  /** Every request that is not an admin one, with its URL read. */
  readonly serve: (config: C, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>
  /** The simulator's own JSON sender, which answers the admin requests too. */
  readonly sendJson: (res: ServerResponse, status: number, body: unknown) => void
  /** The 500 answer (see `serverFor`). */
  readonly failure: (res: ServerResponse, message: string) => void
}

/** A simulator's server: `/__sim/` requests go to its admin API, the rest to `serve`. */
export const simulatorServer = <C extends { readonly maxBodyBytes: number }>(config: C, parts: SimulatorServer<C>): Server =>
  serverFor(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://simulator")
    if (isAdminPath(url.pathname)) {
      return serveAdmin(
        req,
        config.maxBodyBytes,
        (method, path, body) => parts.admin(config, method, path, body),
        (status, body) => parts.sendJson(res, status, body)
      )
    }
    return parts.serve(config, req, res, url)
  }, parts.failure)
