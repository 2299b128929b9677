import { FaultRules, faultRuleParser, type FaultRule as KitFaultRule } from "../kit/faults.js"

/** Fault rules set through `POST /__sim/faults`, matched against a request's GraphQL root fields. */

export type FaultKind = "error5xx" | "reset" | "commitThenDrop" | "latency" | "throttle"

export type FaultRule = KitFaultRule<FaultKind>

/** Validates an admin request body; returns the rule or a message saying what is wrong. */
export const parseFaultRule: (body: unknown) => FaultRule | string = faultRuleParser({
  kinds: ["error5xx", "reset", "commitThenDrop", "latency", "throttle"],
  operationError: 'operation must be a GraphQL root field name or "*"',
  defaultStatus: 503
})

/** A rule fires for a request when it names "*" or any of the request's root fields. */
export class Faults extends FaultRules<FaultRule> {}
