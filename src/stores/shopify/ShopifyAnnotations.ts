/**
 * Order annotations: a tag for the seller's eyes (`tagsAdd`) and a private
 * metafield podsync reads itself (`metafieldsSet`, namespace `podsync`).
 *
 * `annotateMany` sends up to 25 orders in one mutation: one `metafieldsSet`
 * with every order's metafield, then one aliased `tagsAdd` per order.
 * `metafieldsSet` is atomic (Shopify saves none of its metafields when one is
 * refused), so after a refusal the metafields of the orders it did not name
 * are set again in a request of their own; an order named by a refusal fails
 * alone, with the error `annotate` would have given it.
 */
import { Effect, Either } from "effect"
import type { Annotation } from "../../domain/StoreTypes.js"
import type { StoreConnector } from "../StoreConnector.js"
import { StoreApiError, type StoreError } from "../StoreErrors.js"
import { chunksOf, type Indexed, roundsByKey } from "./ShopifyBatches.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import {
  ANNOTATE,
  ANNOTATIONS_PER_MUTATION,
  annotateMany as annotateManyDocument,
  isLegacyOrderId,
  METAFIELDS_SET,
  orderGid,
  TAGS_ADD,
  tagAlias
} from "./ShopifyQueries.js"
import { aliasedData, AnnotateData, MetafieldsSetData, TagsAddData, UserErrorsPayload } from "./ShopifySchemas.js"

/** Namespace of the connector's metafields (`podsync.draft` holds the draft id). */
export const METAFIELD_NAMESPACE = "podsync"

type AnnotateItem = { readonly storeOrderId: string; readonly annotation: Annotation }
type AnnotateResult = Either.Either<void, StoreError>
type UserError = { readonly field: ReadonlyArray<string> | null; readonly message: string }

const metafieldOf = (id: string, annotation: Annotation) =>
  annotation.field === undefined
    ? undefined
    : {
      ownerId: id,
      namespace: METAFIELD_NAMESPACE,
      key: annotation.field.key,
      type: "single_line_text_field",
      value: annotation.field.value
    }

/**
 * Which metafield each `metafieldsSet` userError is about, by its `field` path (["metafields", "3", …]);
 * null when it names none (then it concerns them all).
 */
export const metafieldIndexOf = (error: UserError, count: number): number | null => {
  const [root, index] = error.field ?? []
  const n = root === "metafields" && index !== undefined && /^\d+$/.test(index) ? Number(index) : Number.NaN
  return Number.isInteger(n) && n < count ? n : null
}

export const makeShopifyAnnotations = (storeKey: string, graphql: ShopifyGraphql) => {
  const refused = (operation: string, errors: ReadonlyArray<{ message: string }>) =>
    new StoreApiError({ storeKey, operation, messages: errors.map((e) => e.message) })

  const userErrorsFail = (operation: string, errors: ReadonlyArray<{ message: string }>) =>
    errors.length === 0 ? Effect.void : Effect.fail(refused(operation, errors))

  const notAnOrderId = (storeOrderId: string) =>
    new StoreApiError({ storeKey, operation: "annotate", messages: [`"${storeOrderId}" is not a Shopify order id`] })

  const annotate: StoreConnector["annotate"] = (storeOrderId, annotation) =>
    Effect.gen(function*() {
      if (!isLegacyOrderId(storeOrderId)) return yield* notAnOrderId(storeOrderId)
      const id = orderGid(storeOrderId)
      const metafield = metafieldOf(id, annotation)
      const metafields = metafield === undefined ? undefined : [metafield]
      if (metafields !== undefined && annotation.tag !== undefined) {
        // One request for both; the private field first: it is what podsync itself reads, the tag is for the seller's eyes.
        const { metafieldsSet, tagsAdd } = yield* graphql.run({
          name: "annotate",
          document: ANNOTATE,
          variables: { metafields, id, tags: [annotation.tag] },
          data: AnnotateData,
          mutation: true,
          estimatedCost: 20
        })
        yield* userErrorsFail("metafieldsSet", metafieldsSet?.userErrors ?? [])
        return yield* userErrorsFail("tagsAdd", tagsAdd?.userErrors ?? [])
      }
      if (metafields !== undefined) {
        const { metafieldsSet } = yield* graphql.run({
          name: "metafieldsSet",
          document: METAFIELDS_SET,
          variables: { metafields },
          data: MetafieldsSetData,
          mutation: true,
          estimatedCost: 10
        })
        yield* userErrorsFail("metafieldsSet", metafieldsSet?.userErrors ?? [])
      }
      if (annotation.tag !== undefined) {
        const { tagsAdd } = yield* graphql.run({
          name: "tagsAdd",
          document: TAGS_ADD,
          variables: { id, tags: [annotation.tag] },
          data: TagsAddData,
          mutation: true,
          estimatedCost: 10
        })
        yield* userErrorsFail("tagsAdd", tagsAdd?.userErrors ?? [])
      }
    })

  /**
   * The userErrors of a `metafieldsSet` of the metafields of `owners`, by owner. When some are refused
   * none was saved: `retry` lists the owners no error named, to be set again.
   */
  const metafieldErrors = <O>(payload: UserErrorsPayload, owners: ReadonlyArray<O>) => {
    const errors = payload?.userErrors ?? []
    const byOwner = owners.map((owner) => ({ owner, errors: [] as Array<UserError> }))
    for (const error of errors) {
      const index = metafieldIndexOf(error, owners.length)
      const named = index === null ? undefined : byOwner[index] // in range: metafieldIndexOf checks it
      if (named === undefined) { for (const each of byOwner) each.errors.push(error) }
      else named.errors.push(error)
    }
    const retry = errors.length === 0 ? [] : byOwner.flatMap((o) => (o.errors.length === 0 ? [o.owner] : []))
    return { byOwner, retry }
  }

  /**
   * Sets the metafields of `owners` alone, again until Shopify refuses none of the rest;
   * each round drops at least the refused ones, so it ends.
   */
  const setMetafieldsAgain = (
    owners: ReadonlyArray<Indexed<AnnotateItem>>,
    results: Array<AnnotateResult>
  ): Effect.Effect<void> =>
    Effect.gen(function*() {
      if (owners.length === 0) return
      const answer = yield* Effect.either(
        graphql.run({
          name: "metafieldsSet",
          document: METAFIELDS_SET,
          variables: { metafields: owners.map(({ item }) => metafieldOf(orderGid(item.storeOrderId), item.annotation)) },
          data: MetafieldsSetData,
          mutation: true,
          estimatedCost: 10
        })
      )
      if (Either.isLeft(answer)) {
        for (const { index } of owners) results[index] = Either.left(answer.left)
        return
      }
      const { byOwner, retry } = metafieldErrors(answer.right.metafieldsSet, owners)
      for (const { owner, errors } of byOwner) {
        if (errors.length > 0) results[owner.index] = Either.left(refused("metafieldsSet", errors))
      }
      yield* setMetafieldsAgain(retry, results)
    })

  /** One mutation for a chunk of items, each a different order with a tag, a field or both. */
  const annotateChunk = (chunk: ReadonlyArray<Indexed<AnnotateItem>>, results: Array<AnnotateResult>) =>
    Effect.gen(function*() {
      const withField = chunk.filter(({ item }) => item.annotation.field !== undefined)
      const withTag = chunk.filter(({ item }) => item.annotation.tag !== undefined)
      const aliases = withTag.map((_, j) => tagAlias(j))
      const keys = [...(withField.length > 0 ? ["metafieldsSet"] : []), ...aliases]
      const answer = yield* Effect.either(
        graphql.run({
          name: "annotateMany",
          document: annotateManyDocument(withField.length > 0, withTag.length),
          variables: {
            ...(withField.length > 0
              ? { metafields: withField.map(({ item }) => metafieldOf(orderGid(item.storeOrderId), item.annotation)) }
              : {}),
            ...Object.fromEntries(
              withTag.flatMap(({ item }, j) => [
                [`id${j}`, orderGid(item.storeOrderId)],
                [`tags${j}`, [item.annotation.tag]]
              ])
            )
          },
          data: aliasedData(keys, UserErrorsPayload),
          mutation: true,
          estimatedCost: 10 * keys.length
        })
      )
      if (Either.isLeft(answer)) {
        for (const { index } of chunk) results[index] = Either.left(answer.left)
        return
      }
      for (const { index } of chunk) results[index] = Either.void
      // As `annotate`: the metafield's refusal first, then the tag's.
      withTag.forEach(({ index }, j) => {
        const errors = answer.right[tagAlias(j)]?.userErrors ?? []
        if (errors.length > 0) results[index] = Either.left(refused("tagsAdd", errors))
      })
      const { byOwner, retry } = metafieldErrors(answer.right.metafieldsSet ?? null, withField)
      for (const { owner, errors } of byOwner) {
        if (errors.length > 0) results[owner.index] = Either.left(refused("metafieldsSet", errors))
      }
      // Nothing of the atomic metafieldsSet was saved: set again those it did not refuse.
      yield* setMetafieldsAgain(retry, results)
    })

  const annotateMany = (items: ReadonlyArray<AnnotateItem>): Effect.Effect<ReadonlyArray<AnnotateResult>> =>
    Effect.gen(function*() {
      const results: Array<AnnotateResult> = new Array(items.length)
      const toSend: Array<Indexed<AnnotateItem>> = []
      items.forEach((item, index) => {
        if (!isLegacyOrderId(item.storeOrderId)) results[index] = Either.left(notAnOrderId(item.storeOrderId))
        else if (item.annotation.field === undefined && item.annotation.tag === undefined) results[index] = Either.void
        else toSend.push({ index, item })
      })
      // One order at most once per request, so that two metafields never race for the same key.
      for (const round of roundsByKey(toSend, (item) => item.storeOrderId)) {
        for (const chunk of chunksOf(round, ANNOTATIONS_PER_MUTATION)) yield* annotateChunk(chunk, results)
      }
      return results
    })

  return { annotate, annotateMany }
}
