/**
 * Traces of the daemon's work (the pipeline's spans: pull, draft, follow-up, fulfil) to an
 * OpenTelemetry collector over OTLP/HTTP, when one is configured: `tracing.otlpEndpoint`, else the
 * standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. Without one, the
 * exporter is not even loaded and nothing is sent.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"

type Env = Readonly<Record<string, string | undefined>>

/** Where the spans go: the configured base address's /v1/traces, else the standard variables' (as OpenTelemetry reads them). */
export const otlpTracesUrl = (configured: string | undefined, env: Env = process.env): string | undefined => {
  const base = configured ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined)
  if (configured === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  return base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`
}

/** The tracer of the daemon's spans: the OTLP exporter where a collector is configured, else nothing at all (`Layer.empty`). */
export const TracingLive = (config: AppConfig, env: Env = process.env): Layer.Layer<never> => {
  const url = otlpTracesUrl(config.tracing.otlpEndpoint, env)
  if (url === undefined) return Layer.empty
  return Layer.unwrapEffect(
    Effect.promise(async () => {
      const [OtlpTracer, OtlpSerialization] = await Promise.all([
        import("@effect/opentelemetry/OtlpTracer"),
        import("@effect/opentelemetry/OtlpSerialization")
      ])
      return OtlpTracer.layer({
        url,
        resource: { serviceName: env.OTEL_SERVICE_NAME || "podsync" },
        exportInterval: "2 seconds"
      }).pipe(
        Layer.provide(OtlpSerialization.layerJson),
        Layer.provide(NodeHttpClient.layerUndici),
        // The origin only: an address may carry a token in its path or query.
        Layer.tap(() => Effect.logInfo(`traces go to the OpenTelemetry collector at ${new URL(url).origin}`))
      )
    })
  )
}
