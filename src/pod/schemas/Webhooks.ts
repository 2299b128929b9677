/** Webhook subscriptions (GET/POST /api/v3/webhooks, DELETE /api/v3/webhooks/{webhook_id}). */
import { Schema } from "effect"
import * as E from "../../domain/PodEnums.js"
import { Envelope, ListEnvelope, opt, Timestamp, WebhookStatus, WebhookTopic, WebhookVersion, type PagingQuery } from "./Common.js"

export const Webhook = Schema.Struct({
  webhook_id: Schema.String,
  topic: opt(WebhookTopic),
  status: opt(WebhookStatus),
  delivery_url: opt(Schema.String),
  version: opt(WebhookVersion),
  /** Named by the create body; kept when the service echoes it. */
  name: opt(Schema.String),
  created_at: opt(Timestamp),
  updated_at: opt(Timestamp),
  team_id: opt(Schema.String),
  store_id: opt(Schema.String)
}).annotations({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

/**
 * The list answer. Protobuf JSON leaves an empty list out, so an account with no subscription
 * answers `{ status, message, paging }` with no `data`: read as no subscriptions.
 */
export const WebhookListResponse = ListEnvelope(Webhook)
export const WebhookResponse = Envelope(Webhook)

/** Body of POST /api/v3/webhooks. The service wants HTTPS; the length limits are the spec's. */
export const CreateWebhookInput = Schema.Struct({
  status: Schema.Literal(...E.WebhookStatuses),
  topic: Schema.Literal(...E.WebhookTopics),
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
  version: Schema.Literal(...E.WebhookVersions),
  delivery_url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)),
  store_id: Schema.optional(Schema.String)
}).annotations({ identifier: "CreateWebhookInput" })
export type CreateWebhookInput = typeof CreateWebhookInput.Type

/** Query of GET /api/v3/webhooks. */
export interface WebhookQuery {
  readonly filter?: {
    readonly statuses?: ReadonlyArray<E.WebhookStatus>
    readonly store_ids?: ReadonlyArray<string>
    /** Internal use, per the spec. */
    readonly team_ids?: ReadonlyArray<string>
    readonly topics?: ReadonlyArray<E.WebhookTopic>
    readonly versions?: ReadonlyArray<E.WebhookVersion>
    readonly webhook_ids?: ReadonlyArray<string>
  }
  readonly paging?: PagingQuery
}
