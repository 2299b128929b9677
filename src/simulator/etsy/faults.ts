import { FaultRules, faultRuleParser, type FaultRule as KitFaultRule } from "../kit/faults.js"

/**
 * Fault rules set through `POST /__sim/faults`, matched against the operation a request is for
 * (`getShopReceipts`, `getShopReceipt`, `createReceiptShipment`, `updateShopReceipt`, `getShop`,
 * `getShippingCarriers`, `oauthToken`, or "*"). `error5xx` answers before acting; `commitThenDrop` acts, then drops the connection; `reset`
 * drops it before acting; `latency` delays; `429` answers as the quota would, without counting.
 */

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "429"

export const operations = [
  "getShopReceipts",
  "getShopReceipt",
  "createReceiptShipment",
  "updateShopReceipt",
  "getShop",
  "getShippingCarriers",
  "oauthToken"
] as const
export type Operation = (typeof operations)[number]

export type FaultRule = KitFaultRule<FaultKind>

export const parseFaultRule: (body: unknown) => FaultRule | string = faultRuleParser({
  kinds: ["error5xx", "reset", "commitThenDrop", "latency", "429"],
  operations,
  operationError: `operation must be one of ${operations.join(", ")} or "*"`,
  defaultStatus: 503
})

export class Faults extends FaultRules<FaultRule> {}
