import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type FieldNode
} from "graphql"

/**
 * Shopify's calculated query cost (https://shopify.dev/docs/api/usage/rate-limits): scalars and enums 0,
 * objects 1, a connection 2 plus `first`/`last` × the cost of one node, an interface or union the maximum of
 * its possible selections, a mutation field 10. The requested cost is computed from the query before it
 * runs; the actual cost from the data it returned. `nodes(ids:)` answers one object per id, so it is
 * charged per id. How a plain list with a `first` argument (`fulfillments(first:)`, `trackingInfo(first:)`)
 * is charged the published table does not say: by default as one object, as the table reads; with
 * `plainListsByFirst` by its `first`, like a connection, so a client must survive either.
 */

export const mutationFieldCost = 10

export interface ThrottleStatus {
  readonly maximumAvailable: number
  readonly currentlyAvailable: number
  readonly restoreRate: number
}

/** A leaky bucket of query-cost points that refills at `restoreRate` points per second. */
export class CostBucket {
  private available: number
  private updatedAt: number

  constructor(
    readonly maximumAvailable: number,
    readonly restoreRate: number,
    private readonly now: () => number
  ) {
    this.available = maximumAvailable
    this.updatedAt = now()
  }

  private refill(): void {
    const now = this.now()
    const elapsed = Math.max(0, now - this.updatedAt) / 1000
    this.available = Math.min(this.maximumAvailable, this.available + elapsed * this.restoreRate)
    this.updatedAt = now
  }

  /** Takes `cost` points if they are all available now; otherwise takes nothing and returns false. */
  tryTake(cost: number): boolean {
    this.refill()
    if (cost > this.available) return false
    this.available -= cost
    return true
  }

  refund(points: number): void {
    this.refill()
    this.available = Math.min(this.maximumAvailable, this.available + Math.max(0, points))
  }

  drain(): void {
    this.refill()
    this.available = 0
  }

  reset(): void {
    this.available = this.maximumAvailable
    this.updatedAt = this.now()
  }

  status(): ThrottleStatus {
    this.refill()
    return { maximumAvailable: this.maximumAvailable, currentlyAvailable: Math.floor(this.available), restoreRate: this.restoreRate }
  }
}

export interface CostRules {
  /** Charge a plain list with a `first` argument by its `first` (requested) instead of as one object. */
  readonly plainListsByFirst: boolean
}

interface CostContext extends CostRules {
  readonly schema: GraphQLSchema
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>
  readonly variables: Readonly<Record<string, unknown>>
}

const isConnection = (typeName: string): boolean => typeName.endsWith("Connection")

/** Whether a fragment on `condition` (none: the enclosing type) applies to an object of `type`. */
const applies = (ctx: CostContext, condition: string | undefined, type: GraphQLObjectType): boolean => {
  if (condition === undefined || condition === type.name) return true
  const conditionType = ctx.schema.getType(condition)
  return conditionType !== undefined && conditionType !== null && isAbstractType(conditionType) && ctx.schema.isSubType(conditionType, type)
}

/** Every field selected under `selectionSet` on an object of `type`, fragments inlined where their type condition applies. */
const collectFields = (ctx: CostContext, type: GraphQLObjectType, selectionSet: SelectionSetNode, seen = new Set<string>()): FieldNode[] =>
  selectionSet.selections.flatMap((selection): FieldNode[] => {
    switch (selection.kind) {
      case Kind.FIELD:
        return [selection]
      case Kind.INLINE_FRAGMENT:
        return applies(ctx, selection.typeCondition?.name.value, type) ? collectFields(ctx, type, selection.selectionSet, seen) : []
      case Kind.FRAGMENT_SPREAD: {
        const fragment = ctx.fragments[selection.name.value]
        if (!fragment || seen.has(fragment.name.value) || !applies(ctx, fragment.typeCondition.name.value, type)) return []
        return collectFields(ctx, type, fragment.selectionSet, new Set([...seen, fragment.name.value]))
      }
    }
  })

const fieldDefinition = (parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined =>
  isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined

const pageSize = (ctx: CostContext, def: GraphQLField<unknown, unknown>, node: FieldNode): number => {
  const args = getArgumentValues(def, node, ctx.variables)
  const size = typeof args.first === "number" ? args.first : typeof args.last === "number" ? args.last : 0
  return Math.max(0, size)
}

/**
 * Objects a list field is asked for: one per id for `nodes(ids:)`-like fields, its `first` under
 * `plainListsByFirst`, otherwise charged as one.
 */
const requestedListLength = (ctx: CostContext, def: GraphQLField<unknown, unknown>, node: FieldNode): number => {
  if (!isListType(getNullableType(def.type))) return 1
  const args = getArgumentValues(def, node, ctx.variables)
  if (Array.isArray(args.ids)) return args.ids.length
  return ctx.plainListsByFirst && typeof args.first === "number" ? Math.max(0, args.first) : 1
}

/** The cost of one object whose fields are `selectionSet`; `data` given means actual, absent means requested. */
const objectCost = (ctx: CostContext, parent: GraphQLCompositeType, selectionSet: SelectionSetNode, data?: unknown): number =>
  1 + selectionCost(ctx, parent, selectionSet, data)

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

/** An interface or union costs the most expensive of its possible types' selections (the one returned, when `__typename` says). */
const selectionCost = (ctx: CostContext, parent: GraphQLCompositeType, selectionSet: SelectionSetNode, data?: unknown): number => {
  if (!isAbstractType(parent)) return objectSelectionCost(ctx, parent, selectionSet, data)
  const typename = record(data)?.__typename
  const candidates = ctx.schema.getPossibleTypes(parent).filter((t) => typeof typename !== "string" || t.name === typename)
  return Math.max(0, ...candidates.map((type) => objectSelectionCost(ctx, type, selectionSet, data)))
}

const objectSelectionCost = (ctx: CostContext, parent: GraphQLObjectType, selectionSet: SelectionSetNode, data?: unknown): number => {
  let total = 0
  const actual = data !== undefined
  for (const field of collectFields(ctx, parent, selectionSet)) {
    const def = fieldDefinition(parent, field.name.value)
    if (!def || !field.selectionSet) continue
    const type = getNamedType(def.type)
    if (!isCompositeType(type)) continue
    const value = actual ? record(data)?.[field.alias?.value ?? field.name.value] : undefined
    if (actual && (value === null || value === undefined)) continue
    if (isConnection(type.name) && isObjectType(type)) {
      total += connectionCost(ctx, type, field.selectionSet, actual ? record(value) : undefined, pageSize(ctx, def, field))
    } else if (Array.isArray(value)) {
      total += value.reduce((sum: number, item) => sum + (item === null ? 0 : objectCost(ctx, type, field.selectionSet!, item)), 0)
    } else {
      total += (actual ? 1 : requestedListLength(ctx, def, field)) * objectCost(ctx, type, field.selectionSet, value)
    }
  }
  return total
}

/** 2 + (nodes requested or returned) × the cost of one node, read from `nodes` or `edges { node }`. */
const connectionCost = (
  ctx: CostContext,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  data: Record<string, unknown> | undefined,
  first: number
): number => {
  const nodeType = fieldDefinition(type, "nodes")
  const node = nodeType ? getNamedType(nodeType.type) : undefined
  if (!node || !isCompositeType(node)) return 2
  // One estimator per way the node is selected (`nodes`, `edges { node }`); a node is charged once.
  const perNode: Array<(index: number | null) => number> = []
  for (const field of collectFields(ctx, type, selectionSet)) {
    const list = data ? arrayOf(data, field.alias?.value ?? field.name.value) : []
    if (field.name.value === "nodes" && field.selectionSet) {
      const sel = field.selectionSet
      perNode.push((i) => objectCost(ctx, node, sel, i === null ? undefined : list[i] ?? {}))
    }
    if (field.name.value === "edges" && field.selectionSet) {
      const edgeType = fieldDefinition(type, "edges")
      const edge = edgeType ? getNamedType(edgeType.type) : undefined
      if (!edge || !isObjectType(edge)) continue
      for (const edgeField of collectFields(ctx, edge, field.selectionSet)) {
        if (edgeField.name.value !== "node" || !edgeField.selectionSet) continue
        const sel = edgeField.selectionSet
        const nodeKey = edgeField.alias?.value ?? "node"
        perNode.push((i) => objectCost(ctx, node, sel, i === null ? undefined : record(list[i])?.[nodeKey] ?? {}))
      }
    }
  }
  if (perNode.length === 0) return 2
  if (!data) return 2 + first * Math.max(...perNode.map((cost) => cost(null)))
  const count = Math.max(
    0,
    ...collectFields(ctx, type, selectionSet)
      .filter((f) => f.name.value === "nodes" || f.name.value === "edges")
      .map((f) => arrayOf(data, f.alias?.value ?? f.name.value).length)
  )
  let sum = 0
  for (let i = 0; i < count; i++) sum += Math.max(...perNode.map((cost) => cost(i)))
  return 2 + sum
}

const arrayOf = (data: Record<string, unknown>, key: string): unknown[] => {
  const value = data[key]
  return Array.isArray(value) ? value : []
}

export interface QueryCost {
  readonly requested: number
  readonly actual: (data: unknown) => number
}

/** The cost of running `operation`; mutation root fields cost a flat 10 each. */
export const queryCost = (
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
  rules: CostRules = { plainListsByFirst: false }
): QueryCost => {
  const ctx: CostContext = { schema, fragments, variables, ...rules }
  if (operation.operation === "mutation") {
    const root = schema.getMutationType()
    if (!root) return { requested: 0, actual: () => 0 }
    const requested = collectFields(ctx, root, operation.selectionSet).filter((f) => !f.name.value.startsWith("__")).length *
      mutationFieldCost
    return { requested, actual: () => requested }
  }
  const root = schema.getQueryType()
  if (!root) return { requested: 0, actual: () => 0 }
  return {
    requested: selectionCost(ctx, root, operation.selectionSet),
    actual: (data) => selectionCost(ctx, root, operation.selectionSet, data ?? {})
  }
}
