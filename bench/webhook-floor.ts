// The floor of the webhook-ingest bench: a bare node:http receiver doing only what no receiver can
// skip, the Shopify HMAC check over the raw body and the JSON parse, then answering 200. Run as a
// process of its own (as the daemon is), it prints its port on its first line.
//
//   node dist/bench/webhook-floor.js SECRET
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

const secret = process.argv[2] ?? ""

const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const body = Buffer.concat(chunks)
    const expected = createHmac("sha256", secret).update(body).digest()
    const given = Buffer.from(String(req.headers["x-shopify-hmac-sha256"] ?? ""), "base64")
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad_signature"}')
      return
    }
    try {
      JSON.parse(body.toString("utf8"))
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"malformed_body"}')
      return
    }
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"accepted"}')
  })
})
server.keepAliveTimeout = 30_000
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  console.log(typeof address === "object" && address !== null ? address.port : 0)
})
