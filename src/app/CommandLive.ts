/**
 * The named layers every command is built from, so that `podsync start`, `pull`, `reconcile`
 * and `report` provide the same services instead of re-wiring parts of the graph by hand.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"
import { DryRun } from "../config/DryRun.js"
import type { AppConfig } from "../config/AppConfig.js"
import { MappingStore } from "../pipeline/MappingStore.js"
import { PipelineTriggersLive } from "../pipeline/PipelineSignals.js"
import { PlanningInputsLive } from "../pipeline/PlanningInputs.js"
import { AlertsRepo } from "../repos/AlertsRepo.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { ConsoleActionsRepo } from "../repos/ConsoleActionsRepo.js"
import { CursorsRepo } from "../repos/CursorsRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { OrderListRepo } from "../repos/OrderListRepo.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { StatusRepo } from "../repos/StatusRepo.js"
import { WebhookInboxRepo } from "../repos/WebhookInboxRepo.js"
import { existingDbLayer } from "./DatabaseLive.js"
import { PodLive } from "./PodLive.js"
import { storeSettingsOf, StoresLive } from "./StoresLive.js"

/** Every repository (they need the `Db`). */
export const ReposLive = Layer.mergeAll(
  OrdersRepo.Default,
  CursorsRepo.Default,
  ShipmentsRepo.Default,
  StatusRepo.Default,
  WebhookInboxRepo.Default,
  CatalogRepo.Default,
  MappingsRepo.Default,
  AlertsRepo.Default,
  AttentionRepo.Default,
  OrderListRepo.Default,
  ConsoleActionsRepo.Default
)

/** The services outside: the POD client through the shared budget, and each store's connector (they need the `Db` and an HTTP client). */
export const ExternalApisLive = (config: AppConfig) => Layer.mergeAll(PodLive(config.pod), StoresLive(config.stores))

/** What planning reads besides the order: the stores' mapping tables (watched files) and the catalog cache. */
export const PlanningLive = (config: AppConfig, options: { readonly reloadOnSighup?: boolean } = {}) =>
  PlanningInputsLive(config.stores.map(storeSettingsOf)).pipe(
    Layer.provideMerge(MappingStore.Default({ stores: config.stores, ...options }))
  )

/** A one-shot command's services, on the database the daemon made: what the daemon's stages use, without its loops. */
export const CommandLive = (config: AppConfig) =>
  Layer.mergeAll(PlanningLive(config, { reloadOnSighup: false }), ExternalApisLive(config), DryRun.layer(config.pipeline.dryRun)).pipe(
    Layer.provideMerge(PipelineTriggersLive),
    Layer.provideMerge(ReposLive),
    Layer.provideMerge(NodeHttpClient.layerUndici),
    Layer.provideMerge(existingDbLayer(config))
  )
