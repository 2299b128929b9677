/**
 * The demo's own alert receiver: a local HTTP server taking the signed generic webhook the demo
 * configuration points its alert channel at (config/demo.yaml `alerts:`), checking each
 * signature as the README tells a receiver to, and counting what it got, so the demo's summary
 * can say "3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft".
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { SIGNATURE_HEADER, signAlertBody, TIMESTAMP_HEADER } from "../../alerts/AlertChannels.js"
import { sentSummary } from "../../domain/Alert.js"

/** The demo configuration's secret for its receiver (config/demo.yaml). */
export const DEMO_ALERT_SECRET = "demo-alert-secret"

export interface AlertInbox {
  readonly url: string
  /** Alerts received with a good signature (each alert once, by id). */
  readonly received: () => ReadonlyArray<{ readonly id: number; readonly kind: string; readonly reason: string | null }>
  /** Messages refused for a bad signature. */
  readonly refused: () => number
  readonly summary: () => string
}

export const startAlertInbox = Effect.acquireRelease(
  Effect.async<{ readonly inbox: AlertInbox; readonly close: () => void }>((resume) => {
    const alerts = new Map<number, { readonly id: number; readonly kind: string; readonly reason: string | null }>()
    let refused = 0
    const server = createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (chunk: string) => (body += chunk))
      req.on("end", () => {
        const timestamp = req.headers[TIMESTAMP_HEADER]
        const signature = req.headers[SIGNATURE_HEADER]
        if (typeof timestamp !== "string" || signature !== signAlertBody(DEMO_ALERT_SECRET, timestamp, body)) {
          refused += 1
          res.writeHead(401).end()
          return
        }
        try {
          const parsed = JSON.parse(body) as {
            readonly alerts?: ReadonlyArray<{ readonly id: number; readonly kind: string; readonly reason: string | null }>
          }
          for (const a of parsed.alerts ?? []) alerts.set(a.id, { id: a.id, kind: a.kind, reason: a.reason })
          res.writeHead(200).end("ok")
        } catch {
          res.writeHead(400).end()
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      const received = () => [...alerts.values()]
      resume(Effect.succeed({
        inbox: {
          url: `http://127.0.0.1:${port}/alerts`,
          received,
          refused: () => refused,
          summary: () => sentSummary(received().map((a) => ({ kind: a.kind, reason: a.reason, count: 1 })))
        },
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      }))
    })
  }),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ inbox }) => inbox))
