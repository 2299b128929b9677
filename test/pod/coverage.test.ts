// PodClient.checkEconomyCoverage against the simulator over real HTTP: decoded strictly (only the
// published fields), zero values read back, the published limits enforced before sending, and the
// draft summary carrying the service's shipping substitution.
import { Effect, Layer } from "effect"
import { beforeEach, describe, expect, it } from "vitest"
import { PodClient } from "../../src/pod/PodClient.js"
import { PodRequestGate } from "../../src/pod/PodRequestGate.js"
import { admin, draftInput, podClientLayer, run, sharedPodSimulator } from "./podSim.js"

const sim = sharedPodSimulator()
beforeEach(() => admin(sim.url, "POST", "/reset"))

/** Every request the client lets out, by operation and lane. */
const sent: Array<string> = []
const recording = Layer.succeed(PodRequestGate, {
  around: (info, send) => Effect.zipRight(Effect.sync(() => sent.push(`${info.operation}@${info.lane}`)), send),
  report: () => Effect.void
})
const strict = () => podClientLayer(sim.url, { strictDecoding: true }, recording)

describe("checkEconomyCoverage", () => {
  it("answers each ZIP's coverage, an omitted `covered` read as false, on the normal lane", async () => {
    sent.length = 0
    const answer = await run(strict(), Effect.flatMap(PodClient, (c) => c.checkEconomyCoverage(["90012", "99501-1234"])))
    expect(answer.coverage_version).toMatch(/^sim-/)
    expect(answer.results).toEqual([
      { zip_code: "90012", covered: true, reason: "" },
      { zip_code: "99501", covered: false, reason: "uncovered_zip" }
    ])
    expect(sent).toEqual(["shipping.economyCoverage@normal"])
  })

  it("refuses an empty or oversized list before sending anything", async () => {
    sent.length = 0
    for (const zips of [[], Array.from({ length: 101 }, (_, i) => String(10000 + i)), ["1234"]]) {
      const error = await run(strict(), Effect.flip(Effect.flatMap(PodClient, (c) => c.checkEconomyCoverage(zips))))
      expect(error).toMatchObject({ _tag: "PodInvalidRequestError", ambiguous: false })
    }
    expect(sent).toEqual([])
  })

  it("reports the service's field-level refusal as a bad request, never ambiguous", async () => {
    const error = await run(strict(), Effect.flip(Effect.flatMap(PodClient, (c) => c.checkEconomyCoverage(["ABCDE"]))))
    expect(error).toMatchObject({
      _tag: "PodBadRequestError",
      ambiguous: false,
      details: [{ field: "zip_codes[0]", issue: "must be a US ZIP code: five digits, or ZIP+4" }]
    })
  })
})

describe("createDraftSummary", () => {
  it("keeps the shipping substitution the service applied to an Economy draft", async () => {
    const client = podClientLayer(sim.url, { strictDecoding: true })
    const variantId = (await run(
      client,
      Effect.flatMap(
        PodClient,
        (c) => c.listCatalogVariants({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] }, paging: { limit: 1 } })
      )
    )).data[0]!.variant_id
    await admin(sim.url, "POST", "/economy/coverage", { uncovered: ["90012"] })
    const moved = await run(
      client,
      Effect.flatMap(PodClient, (c) => c.createDraftSummary(draftInput(variantId, "eco:1", { shipping_method: "METHOD_ECONOMY" })))
    )
    expect(moved.shipping_substitution).toEqual({ from: "METHOD_ECONOMY", to: "METHOD_STANDARD", reason: "uncovered_zip" })
    const kept = await run(
      client,
      Effect.flatMap(PodClient, (c) =>
        c.createDraftSummary(
          draftInput(variantId, "eco:2", {
            shipping_method: "METHOD_ECONOMY",
            address: { ...draftInput(variantId, "x").address, zip_code: "10001" }
          })
        ))
    )
    expect(kept.shipping_substitution).toBeUndefined()
  })
})
