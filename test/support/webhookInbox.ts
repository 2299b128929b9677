import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach } from "vitest"

/** One delivery as the receiver got it: headers and the raw body, byte for byte. */
export interface Received {
  headers: IncomingHttpHeaders
  raw: Buffer
}

/**
 * A webhook receiver on 127.0.0.1:0 that a simulator test file keeps open across its tests (opened
 * before them, closed after): it records every delivery and answers with the next of `answers` (then
 * 200). Both are emptied before each test; the arrays keep their identity, so a file can take them apart once.
 */
export const webhookInbox = (path: string) => {
  const received: Array<Received> = []
  /** Status codes the receiver answers with, one per request, then 200. */
  const answers: Array<number> = []
  let server: Server | undefined
  let url = ""
  const inbox = {
    received,
    answers,
    /** The address to subscribe, once opened. */
    get url() {
      return url
    },
    open: async () => {
      server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          received.push({ headers: req.headers, raw: Buffer.concat(chunks) })
          res.writeHead(answers.shift() ?? 200).end()
        })
      })
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
    },
    clear: () => {
      received.length = 0
      answers.length = 0
    },
    close: () => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  }
  beforeAll(inbox.open)
  afterAll(inbox.close)
  beforeEach(inbox.clear)
  return inbox
}
