import { Effect } from "effect"
import { economyZipFor } from "../mapping/DraftPlan.js"
import { coverageByZip, type ZipCoverage } from "../mapping/EconomyShipping.js"
import type { PodLane } from "../domain/PodLane.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodError } from "../pod/PodErrors.js"
import { MAX_COVERAGE_ZIPS } from "../pod/schemas/Coverage.js"
import type { StoredOrder } from "../repos/OrdersRepo.js"
import { PlanningInputs } from "./PlanningInputs.js"

/** The coverage answers the draft stage has for a claimed batch, by five-digit ZIP. */
export type CoverageBook = ReadonlyMap<string, ZipCoverage>

const describe = (error: PodError) =>
  `${error._tag}${"message" in error && typeof error.message === "string" && error.message !== "" ? `: ${error.message}` : ""}`

/**
 * Asks the service whether its Economy carrier serves these ZIPs, at most 100 a call. A call that
 * fails leaves its ZIPs `Unchecked` (decideEconomyShipping says what that means per store); it is
 * logged, never taken for "covered". The draft stage asks on the `normal` lane; a rehearsal on `background`.
 */
export const lookUpCoverage = (zips: ReadonlyArray<string>, storeKey?: string, lane: PodLane = "normal") =>
  Effect.gen(function*() {
    const client = yield* PodClient
    const book = new Map<string, ZipCoverage>()
    const unique = [...new Set(zips)]
    for (let i = 0; i < unique.length; i += MAX_COVERAGE_ZIPS) {
      const chunk = unique.slice(i, i + MAX_COVERAGE_ZIPS)
      const answer = yield* client.checkEconomyCoverage(chunk, { lane, ...(storeKey === undefined ? {} : { storeKey }) }).pipe(
        Effect.either
      )
      if (answer._tag === "Left") {
        yield* Effect.logWarning(
          "could not check Economy coverage: orders of stores that hold uncovered ones wait for it, the others go as Economy"
        ).pipe(
          Effect.annotateLogs({ zips: chunk.length, error: describe(answer.left) })
        )
        for (const zip of chunk) book.set(zip, { _tag: "Unchecked", error: describe(answer.left) })
        continue
      }
      const found = coverageByZip(answer.right.results, answer.right.coverage_version)
      for (const zip of chunk) {
        book.set(zip, found.get(zip) ?? { _tag: "Unchecked", error: "the service's answer did not mention this ZIP" })
      }
    }
    return book as CoverageBook
  })

/** The coverage of every Economy ZIP in a claimed draft batch, in as few calls as it takes (one for a batch of up to 100). */
export const coverageForBatch = (claimed: ReadonlyArray<StoredOrder>) =>
  Effect.gen(function*() {
    const inputs = yield* PlanningInputs
    const economy = claimed.flatMap((stored) => {
      const settings = inputs.settingsFor(stored.storeKey)
      const zip = settings === undefined ? undefined : economyZipFor(stored.order, settings)
      return zip === undefined ? [] : [{ storeKey: stored.storeKey, zip }]
    })
    if (economy.length === 0) return new Map() as CoverageBook
    const [firstStore, ...otherStores] = new Set(economy.map((e) => e.storeKey))
    return yield* lookUpCoverage(economy.map((e) => e.zip), otherStores.length === 0 ? firstStore : undefined)
  })
