import { randomUUID } from "node:crypto"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Option } from "effect"
import type { ShipTo } from "../domain/NormalizedOrder.js"
import { podVariantOfInput } from "../domain/OrderFix.js"
import { PodClient } from "../pod/PodClient.js"
import { chooseVariant, fixAddress } from "../pipeline/OrderFixing.js"
import type { ActionOutcome } from "../pipeline/PersonActions.js"
import { PlanningInputs } from "../pipeline/PlanningInputs.js"
import { type Form, param, postAction } from "./ConsoleRequest.js"
import { fitItems, redirectWithFlash } from "./ConsoleFlash.js"
import { ADDRESS_FIELDS } from "./FixView.js"
import { type OutcomesFlash, outcomesFlashOf } from "./QueueView.js"

/**
 * Fixing in place from an order's page (issue 34): correct the shipping address for the POD
 * draft, choose another POD variant for one line. Each answers with a redirect to the order's
 * page, which says what came of it; the person is the session's user.
 */

const refused = (message: string): ReadonlyArray<ActionOutcome> => [{ id: 0, referenceId: null, outcome: "refused", message }]

/** The address as the form gave it: trimmed, empty fields left out. */
export const shipToOfForm = (form: Form): ShipTo => {
  const fields = Object.fromEntries(
    ADDRESS_FIELDS.flatMap(([field]) => {
      const value = param(form, field)?.trim() ?? ""
      return value === "" ? [] : [[field, value]]
    })
  )
  return { ...fields, name: fields["name"] ?? "", ...(fields["countryCode"] ? { countryCode: fields["countryCode"].toUpperCase() } : {}) }
}

const back = (form: Form, outcomes: ReadonlyArray<ActionOutcome>) =>
  redirectWithFlash(
    `/console/order?ref=${encodeURIComponent(param(form, "back") ?? "")}`,
    fitItems(outcomesFlashOf(outcomes), (kept, more): OutcomesFlash => ({ outcomes: kept, more }))
  )

const orderIdOf = (form: Form) => {
  const id = Number(param(form, "id"))
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}

export const orderFixRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/console/order/fix-address",
    postAction((caller, form) =>
      Effect.gen(function*() {
        const id = orderIdOf(form)
        const person = { user: caller.session.user, actionKey: param(form, "key") ?? randomUUID() }
        const outcomes = id === undefined ? refused("no order named") : yield* fixAddress(id, shipToOfForm(form), person)
        yield* Effect.logInfo("console: address fix").pipe(
          Effect.annotateLogs({ user: caller.session.user, order: id, outcomes: outcomes.map((o) => o.outcome) })
        )
        return yield* back(form, outcomes)
      })
    )
  ),
  HttpRouter.post(
    "/console/order/fix-variant",
    postAction((caller, form) =>
      Effect.gen(function*() {
        const id = orderIdOf(form)
        const pod = podVariantOfInput(param(form, "variant") ?? "")
        const lineId = param(form, "line") ?? ""
        const person = { user: caller.session.user, actionKey: param(form, "key") ?? randomUUID() }
        const client = yield* Effect.serviceOption(PodClient)
        const inputs = yield* Effect.serviceOption(PlanningInputs)
        const outcomes = id === undefined
          ? refused("no order named")
          : pod === undefined
          ? refused("variant not changed: give a POD variant id (or a legacy id, digits only), up to 100 characters")
          : Option.isNone(client) || Option.isNone(inputs)
          ? refused("variant not changed: this process does not plan drafts or reach the POD service")
          : yield* chooseVariant(id, lineId, pod, person).pipe(
            Effect.provideService(PodClient, client.value),
            Effect.provideService(PlanningInputs, inputs.value)
          )
        yield* Effect.logInfo("console: variant fix").pipe(
          Effect.annotateLogs({ user: caller.session.user, order: id, line: lineId, outcomes: outcomes.map((o) => o.outcome) })
        )
        return yield* back(form, outcomes)
      })
    )
  )
)
