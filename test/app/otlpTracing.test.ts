/**
 * Traces through @effect/opentelemetry to an OTLP endpoint when one is configured (#35 item 9): a
 * tiny OTLP/HTTP receiver on a free port gets the daemon's pipeline spans over real HTTP; without
 * an endpoint, no exporter is built at all.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { otlpTracesUrl, TracingLive } from "../../src/app/TracingLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import { pgliteDatabase } from "../support/database.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"
import { createOrders, writeDaemonConfig } from "../support/pipeline.js"

interface OtlpExport {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string } }> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<{ readonly name: string; readonly traceId: string }> }>
  }>
}

/** An OTLP/HTTP receiver (JSON) on a free port, for the test's scope: what it was sent, by path. */
const otlpReceiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ url: string; received: Array<{ path: string; body: OtlpExport }>; close: () => Promise<void> }>((resolve) => {
      const received: Array<{ path: string; body: OtlpExport }> = []
      const server = createServer((request, response) => {
        let text = ""
        request.on("data", (chunk) => (text += chunk))
        request.on("end", () => {
          received.push({ path: request.url ?? "", body: JSON.parse(text) as OtlpExport })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          received,
          close: () => new Promise((done) => server.close(() => done()))
        }))
    })
  ),
  (receiver) => Effect.promise(() => receiver.close())
)

/** Sets an environment variable for the test's scope. */
const envForScope = (name: string, value: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = process.env[name]
      process.env[name] = value
      return before
    }),
    (before) => Effect.sync(() => (before === undefined ? delete process.env[name] : (process.env[name] = before)))
  )

describe("traces to an OpenTelemetry collector", () => {
  it("go to the configured address's /v1/traces, else where the standard variables say", () => {
    expect(otlpTracesUrl("http://collector:4318/", {})).toBe("http://collector:4318/v1/traces")
    expect(otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318" })).toBe("http://otel:4318/v1/traces")
    expect(otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://otel:4318/custom/traces" })).toBe(
      "http://otel:4318/custom/traces"
    )
    expect(otlpTracesUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toBeUndefined()
    expect(otlpTracesUrl(undefined, {})).toBeUndefined()
  })

  it.scoped("are not set up at all when no collector is configured", () =>
    Effect.gen(function*() {
      const stack = yield* scopedStack()
      const config = yield* loadConfig(writeDaemonConfig(stack, 0, { name: "no-tracing" }), {})
      expect(config.tracing.otlpEndpoint).toBeUndefined()
      expect(TracingLive(config, {})).toBe(Layer.empty)
    }))

  it.scopedLive("carry the daemon's pipeline spans to an OTLP/HTTP receiver, named for the service", () =>
    Effect.gen(function*() {
      const receiver = yield* otlpReceiver
      yield* envForScope("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
      const stack = yield* scopedStack()
      const { port } = yield* daemonInProcess(stack, pgliteDatabase().layer)
      yield* until("the daemon to be ready", async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)
      yield* Effect.promise(() => createOrders(stack, 2))
      const spanNames = () =>
        receiver.received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name))))
      yield* until("a draft's span to arrive", async () => spanNames().includes("pipeline.draft"), 60_000)

      expect(receiver.received.every((r) => r.path === "/v1/traces")).toBe(true)
      expect(spanNames()).toEqual(expect.arrayContaining(["pipeline.pull", "pipeline.draft"]))
      const services = receiver.received.flatMap((r) =>
        r.body.resourceSpans.flatMap((rs) => rs.resource.attributes.filter((a) => a.key === "service.name").map((a) => a.value.stringValue))
      )
      expect(new Set(services)).toEqual(new Set(["podsync"]))
    }), 120_000)
})
