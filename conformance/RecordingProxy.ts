/**
 * A loopback HTTP proxy in front of one service that keeps a copy of every
 * exchange: method, path, query, request headers (as sent, secrets masked)
 * and body, status and answer body. Bodies are buffered whole: the POD API
 * answers small JSON documents.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { HttpExchange } from "./OpenApiContract.js"

export interface RecordedExchange extends HttpExchange {
  readonly seq: number
  /** What the proxy was told was running when the request arrived (a client method, or "daemon"). */
  readonly label: string
  /** Header names as sent, with the values of secrets masked. */
  readonly requestHeaders: ReadonlyArray<readonly [string, string]>
  /** Why no answer came back (status 0). */
  readonly error?: string
}

export interface RecordingProxy {
  readonly url: string
  readonly exchanges: () => ReadonlyArray<RecordedExchange>
  /** Labels the exchanges that arrive from now on. */
  readonly label: (label: string) => void
  readonly close: () => Promise<void>
}

const SECRET = /secret|signature|authorization|token|password|api-?key/i

/**
 * A secret's value with only its shape kept: the scheme word of an `Authorization` value
 * (`Bearer <masked>`) and the parts of a `key:secret` pair (`<masked>:<masked>`).
 */
export const maskSecret = (value: string): string => {
  const scheme = /^([A-Za-z]+)\s+\S/.exec(value)
  return scheme !== null ? `${scheme[1]} <masked>` : value.split(":").map(() => "<masked>").join(":")
}
const UPSTREAM_TIMEOUT_MS = 30_000

const readAll = (stream: NodeJS.ReadableStream): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("end", () => resolve(Buffer.concat(chunks)))
    stream.on("error", reject)
  })

const pairs = (raw: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> => {
  const out: Array<readonly [string, string]> = []
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, SECRET.test(raw[i]!) ? maskSecret(raw[i + 1]!) : raw[i + 1]!])
  return out
}

export const startRecordingProxy = async (target: string): Promise<RecordingProxy> => {
  const upstream = new URL(target)
  const recorded: Array<RecordedExchange> = []
  let current = "unlabelled"
  let seq = 0

  const forward = (req: http.IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const request = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
          timeout: UPSTREAM_TIMEOUT_MS
        },
        (response) => {
          readAll(response).then((answer) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: answer }), reject)
        }
      )
      request.on("timeout", () => request.destroy(new Error(`no answer within ${UPSTREAM_TIMEOUT_MS} ms`)))
      request.on("error", reject)
      request.end(body)
    })

  const server = http.createServer((req, res) => {
    const label = current
    const n = ++seq
    const url = new URL(req.url ?? "/", "http://proxy")
    const base = {
      seq: n,
      label,
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      requestHeaders: pairs(req.rawHeaders)
    }
    readAll(req)
      .then(async (body) => {
        try {
          const answer = await forward(req, body)
          recorded.push({ ...base, requestBody: body.toString("utf8"), status: answer.status, responseBody: answer.body.toString("utf8") })
          const { connection: _c, "keep-alive": _k, "transfer-encoding": _t, ...headers } = answer.headers
          res.writeHead(answer.status, { ...headers, "content-length": answer.body.length })
          res.end(answer.body)
        } catch (error) {
          recorded.push({ ...base, requestBody: body.toString("utf8"), status: 0, responseBody: "", error: String(error) })
          res.writeHead(502, { "content-type": "text/plain" }).end("recording proxy: upstream failed")
        }
      })
      .catch(() => res.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges: () => [...recorded].sort((a, b) => a.seq - b.seq),
    label: (label) => {
      current = label
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
