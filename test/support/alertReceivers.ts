/**
 * Real receivers of alerts for the tests, over real connections: an HTTP server that takes the
 * Slack-compatible and the signed generic webhooks (checking the signature as the README tells a
 * receiver to, with node:crypto, not with podsync's code), and an SMTP server (smtp-server, from
 * the nodemailer project) that keeps every message it accepts.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

export interface ReceivedRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The signature checked out (generic webhook); null when the request carried none. */
  readonly verified: boolean | null
  /** What the receiver answered: a status, or "hang" (it never answered). */
  readonly answered: number | "hang"
  /** When it arrived (Date.now()). */
  readonly receivedAt: number
}

/** What the receiver answers the n-th request (from 1): a status, or "hang" to keep the request open. */
export type Answer = (n: number, request: { readonly path: string; readonly body: string }) => number | "hang"

export interface WebhookReceiver {
  readonly url: string
  readonly requests: Array<ReceivedRequest>
  /** The requests it answered 2xx: what was delivered. */
  readonly delivered: () => ReadonlyArray<ReceivedRequest>
  /** The alerts of the delivered generic-webhook messages, by alert id. */
  readonly deliveredAlertIds: () => ReadonlyArray<number>
  answer: Answer
  readonly close: () => Promise<void>
}

/** The README's recipe: HMAC-SHA256 over "<timestamp>.<body>" with the shared secret, hex, as "v1=<hex>"; timestamp within 5 minutes. */
export const verifySignature = (secret: string, headers: IncomingHttpHeaders, body: string, nowMs = Date.now()): boolean | null => {
  const signature = headers["x-podsync-signature"]
  const timestamp = headers["x-podsync-timestamp"]
  if (typeof signature !== "string" || typeof timestamp !== "string") return null
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > 300) return false
  const expected = Buffer.from(`v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`)
  const given = Buffer.from(signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

export const startWebhookReceiver = async (
  options: { readonly secret?: string; readonly answer?: Answer; readonly clock?: () => number } = {}
): Promise<WebhookReceiver> => {
  const requests: Array<ReceivedRequest> = []
  const hanging = new Set<ServerResponse>()
  const receiver = {
    answer: options.answer ?? (() => 200)
  } as { answer: Answer }
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      const path = req.url ?? "/"
      const answered = receiver.answer(requests.length + 1, { path, body })
      const verified = options.secret === undefined ? null : verifySignature(options.secret, req.headers, body, options.clock?.())
      requests.push({ path, headers: req.headers, body, verified, answered, receivedAt: Date.now() })
      if (answered === "hang") {
        hanging.add(res)
        return
      }
      res.writeHead(answered, { "content-type": "text/plain" }).end(answered < 300 ? "ok" : "no")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const delivered = () => requests.filter((r) => typeof r.answered === "number" && r.answered >= 200 && r.answered < 300)
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    requests,
    delivered,
    deliveredAlertIds: () =>
      delivered().flatMap((r) => {
        const parsed = JSON.parse(r.body) as { readonly alerts?: ReadonlyArray<{ readonly id: number }> }
        return (parsed.alerts ?? []).map((a) => a.id)
      }),
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
}

export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
  readonly subject: string
  readonly user: string | undefined
}

export interface SmtpReceiver {
  readonly port: number
  readonly mails: Array<ReceivedMail>
  readonly close: () => Promise<void>
}

/** An SMTP server on 127.0.0.1 without TLS; with `auth` it accepts only that user and password. */
export const startSmtpReceiver = async (auth?: { readonly user: string; readonly password: string }): Promise<SmtpReceiver> => {
  const mails: Array<ReceivedMail> = []
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: auth === undefined,
    allowInsecureAuth: true,
    logger: false,
    onAuth: (session, _connection, callback) => {
      if (auth !== undefined && session.username === auth.user && session.password === auth.password) {
        callback(null, { user: session.username })
      } else callback(new Error("Invalid username or password"))
    },
    onData: (stream, session, callback) => {
      let raw = ""
      stream.setEncoding("utf8")
      stream.on("data", (chunk: string) => (raw += chunk))
      stream.on("end", () => {
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? ""
        mails.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          user: typeof session.user === "string" ? session.user : undefined
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const { port } = server.server.address() as AddressInfo
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}
