/**
 * The requested cost of a GraphQL document under Shopify's published rules
 * (shopify.dev, "GraphQL Admin API rate limits"; store-apis.md §0 and §1.6):
 * scalars and enums 0, an object 1, an interface or union the most expensive
 * of its possible selections, a connection 2 plus `first` (or `last`) times
 * the cost of one node, a mutation field 10. Written apart from the Shopify
 * simulator's cost (which the run does not trust to judge itself).
 *
 * The table says nothing of a plain list with a `first` argument
 * (`Order.fulfillments(first:)`, `Fulfillment.trackingInfo(first:)`), so it is
 * counted both ways: `published` charges it as one item, as the table's
 * "object 1" reads; `listsByFirst` charges it `first` items. A list of ids
 * (`nodes(ids:)`) answers one object per id and is charged per id both ways.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromAST
} from "graphql"

export type ListRule = "published" | "listsByFirst"

export const MUTATION_FIELD_COST = 10

export interface Cost {
  readonly requested: number
  /** Sizes the document and its variables do not give (a connection without `first`, a variable without a value): counted as 0. */
  readonly unknown: ReadonlyArray<string>
}

interface Ctx {
  readonly schema: GraphQLSchema
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>
  readonly variables: Readonly<Record<string, unknown>>
  readonly rule: ListRule
  readonly unknown: Set<string>
}

export const isConnectionType = (type: GraphQLCompositeType): type is GraphQLObjectType =>
  isObjectType(type) && type.name.endsWith("Connection") && ("nodes" in type.getFields() || "edges" in type.getFields())

const applies = (ctx: Ctx, condition: string | undefined, type: GraphQLObjectType): boolean => {
  if (condition === undefined || condition === type.name) return true
  const conditionType = ctx.schema.getType(condition)
  return conditionType != null && isAbstractType(conditionType) && ctx.schema.isSubType(conditionType, type)
}

/** The fields selected on an object of `type`, fragments inlined where they apply. */
const fieldsOn = (
  ctx: Ctx,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  seen: ReadonlySet<string> = new Set()
): Array<FieldNode> =>
  selectionSet.selections.flatMap((selection): Array<FieldNode> => {
    switch (selection.kind) {
      case Kind.FIELD:
        return [selection]
      case Kind.INLINE_FRAGMENT:
        return applies(ctx, selection.typeCondition?.name.value, type) ? fieldsOn(ctx, type, selection.selectionSet, seen) : []
      case Kind.FRAGMENT_SPREAD: {
        const fragment = ctx.fragments.get(selection.name.value)
        if (fragment === undefined || seen.has(fragment.name.value) || !applies(ctx, fragment.typeCondition.name.value, type)) return []
        return fieldsOn(ctx, type, fragment.selectionSet, new Set([...seen, fragment.name.value]))
      }
    }
  })

/**
 * One argument's value as sent (a literal, or a variable's value), `undefined` when the document and
 * the variables do not give it; the other arguments need no value here.
 */
export const argumentValue = (
  def: GraphQLField<unknown, unknown>,
  node: FieldNode,
  name: string,
  variables: Readonly<Record<string, unknown>>
): unknown => {
  const arg = def.args.find((a) => a.name === name)
  const given = node.arguments?.find((a) => a.name.value === name)
  if (arg === undefined || given === undefined) return arg?.defaultValue
  if (given.value.kind === Kind.VARIABLE) return variables[given.value.name.value]
  return valueFromAST(given.value, arg.type, variables)
}

const sizeOf = (def: GraphQLField<unknown, unknown>, node: FieldNode, variables: Readonly<Record<string, unknown>>): number | undefined => {
  const first = argumentValue(def, node, "first", variables)
  const last = argumentValue(def, node, "last", variables)
  return typeof first === "number" ? first : typeof last === "number" ? last : undefined
}

/** One object of `type` with this selection: 1, plus what its fields cost. */
const objectCost = (ctx: Ctx, type: GraphQLCompositeType, selectionSet: SelectionSetNode): number =>
  1 + selectionCost(ctx, type, selectionSet)

const selectionCost = (ctx: Ctx, type: GraphQLCompositeType, selectionSet: SelectionSetNode): number => {
  if (isAbstractType(type)) {
    return Math.max(0, ...ctx.schema.getPossibleTypes(type).map((possible) => objectSelectionCost(ctx, possible, selectionSet)))
  }
  return objectSelectionCost(ctx, type, selectionSet)
}

const objectSelectionCost = (ctx: Ctx, type: GraphQLObjectType, selectionSet: SelectionSetNode): number =>
  fieldsOn(ctx, type, selectionSet).reduce((sum, field) => sum + fieldCost(ctx, type, field), 0)

const fieldCost = (ctx: Ctx, parent: GraphQLObjectType, node: FieldNode): number => {
  const def = parent.getFields()[node.name.value]
  const named = def === undefined ? undefined : getNamedType(def.type)
  if (def === undefined || named === undefined || !isCompositeType(named) || node.selectionSet === undefined) return 0
  const where = `${parent.name}.${def.name}`
  if (isConnectionType(named)) {
    const size = sizeOf(def, node, ctx.variables)
    if (size === undefined) ctx.unknown.add(`${where}: no first or last given`)
    return 2 + (size ?? 0) * nodeCost(ctx, named, node.selectionSet)
  }
  if (isListType(getNullableType(def.type))) {
    const hasIds = def.args.some((a) => a.name === "ids")
    const ids = hasIds ? argumentValue(def, node, "ids", ctx.variables) : undefined
    if (hasIds && !Array.isArray(ids)) ctx.unknown.add(`${where}: no ids given`)
    const count = Array.isArray(ids) ? ids.length : ctx.rule === "listsByFirst" ? sizeOf(def, node, ctx.variables) ?? 1 : 1
    return count * objectCost(ctx, named, node.selectionSet)
  }
  return objectCost(ctx, named, node.selectionSet)
}

/** The cost of one node of a connection, read from `nodes { … }` or `edges { node { … } }` (the dearer). */
const nodeCost = (ctx: Ctx, connection: GraphQLObjectType, selectionSet: SelectionSetNode): number => {
  const fields = connection.getFields()
  const costs = fieldsOn(ctx, connection, selectionSet).flatMap((field) => {
    if (field.name.value === "nodes" && field.selectionSet) {
      const node = getNamedType(fields["nodes"]!.type)
      return isCompositeType(node) ? [objectCost(ctx, node, field.selectionSet)] : []
    }
    if (field.name.value === "edges" && field.selectionSet) {
      const edge = getNamedType(fields["edges"]!.type)
      if (!isObjectType(edge)) return []
      const node = getNamedType(edge.getFields()["node"]?.type)
      return fieldsOn(ctx, edge, field.selectionSet)
        .filter((f) => f.name.value === "node" && f.selectionSet !== undefined)
        .flatMap((f) => (node !== undefined && isCompositeType(node) ? [objectCost(ctx, node, f.selectionSet!)] : []))
    }
    return []
  })
  return Math.max(0, ...costs)
}

/** The requested cost of the document's operation (`operationName`, else its only one) under `rule`. */
export const requestedCost = (
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  rule: ListRule,
  operationName?: string
): Cost => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  const operations: Array<OperationDefinitionNode> = []
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition)
    if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition)
  }
  const operation = operations.find((op) => operationName === undefined || op.name?.value === operationName)
  const ctx: Ctx = { schema, fragments, variables, rule, unknown: new Set() }
  if (operation === undefined) return { requested: 0, unknown: ["no operation to cost"] }
  if (operation.operation === "mutation") {
    const root = schema.getMutationType()
    const count = root ? fieldsOn(ctx, root, operation.selectionSet).filter((f) => !f.name.value.startsWith("__")).length : 0
    return { requested: count * MUTATION_FIELD_COST, unknown: [] }
  }
  const root = schema.getQueryType()
  if (!root) return { requested: 0, unknown: ["the schema has no query type"] }
  const requested = objectSelectionCost(ctx, root, operation.selectionSet)
  return { requested, unknown: [...ctx.unknown] }
}
