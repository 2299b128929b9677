import type { StoreConfig } from "../../config/StoreConfig.js"
import { planOrders } from "./OrderPlan.js"
import { etsyReceipt, jsonFeedOrder, wooCommerceOrder } from "./PlatformOrders.js"

/**
 * How a seller puts an order of their own into the demo's stores once it has run (pure): for each
 * store, the one command that places a paid order for a mapped tee at its simulator, on the port it
 * really listens on, and where to watch the order move.
 */

export interface DemoStoreAddress {
  readonly key: string
  readonly platform: StoreConfig["platform"]
  /** The simulator's root (its `/__sim/` admin). */
  readonly url: string
}

/** A mapped tee the demo mapping tables carry, as the demo's own first order has it. */
const teeOrder = () => {
  const planned = planOrders(4).find((p) => p.kind === "mapped")
  if (planned === undefined) throw new Error("the demo's plan has no mapped order")
  return planned
}

/** The simulator's admin path and body that place the order, as its platform takes it. */
const placing = (platform: StoreConfig["platform"]): { readonly path: string; readonly body: unknown } => {
  const planned = teeOrder()
  switch (platform) {
    case "shopify":
      return { path: "/__sim/orders", body: planned.spec }
    case "woocommerce":
      return { path: "/__sim/orders", body: wooCommerceOrder(planned) }
    case "etsy":
      return { path: "/__sim/receipts", body: etsyReceipt(planned) }
    case "jsonfeed":
      return { path: "/__sim/orders", body: jsonFeedOrder(planned) }
  }
}

/** The curl command that places a paid order for a mapped tee in this store (its simulator, at its real address). */
export const placeOrderCommand = (store: DemoStoreAddress): string => {
  const { path, body } = placing(store.platform)
  return `curl -s -X POST ${store.url}${path} -H 'content-type: application/json' -d '${JSON.stringify(body)}'`
}

/** The lines the demo ends with while the daemon keeps running: how to put an order in, and where to watch it. */
export const putAnOrderIn = (
  stores: ReadonlyArray<DemoStoreAddress>,
  daemon: { readonly url: string; readonly port: number },
  configFile: string
): ReadonlyArray<string> => [
  `The console is at ${daemon.url}/console (no login: this machine only). The daemon and the simulators keep running until Ctrl-C.`,
  "Put an order in and watch it move: in another terminal, place a paid order for a tee the mapping carries",
  ...stores.flatMap((store) => [
    stores.length > 1 ? `  in ${store.key}:` : `  in the store (${store.key}):`,
    `    ${placeOrderCommand(store)}`
  ]),
  `then watch it on the console (${daemon.url}/console), or with: PODSYNC_DEMO_PORT=${daemon.port} npx podsync status --config ${configFile}`,
  "Within seconds it is pulled and drafted at the POD service; the demo's POD shop checks it out and ships it, and the tracking goes to the store."
]
