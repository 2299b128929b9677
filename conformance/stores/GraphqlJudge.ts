/**
 * One GraphQL document (with the variables it was sent with, if any) judged
 * against Shopify's published Admin schema: graphql-js's validation, what it
 * uses that is deprecated (fields, arguments, enum values, input fields, in
 * the document or in its variables), Shopify's paging rules, its requested
 * cost both ways (GraphqlCost.ts), the access scopes its types, fields and
 * mutations need (ShopifyAccess.ts) and the protected customer data it reads.
 */
import {
  type DocumentNode,
  type FieldNode,
  getNamedType,
  getNullableType,
  getVariableValues,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  TypeInfo,
  typeFromAST,
  validate,
  visit,
  visitWithTypeInfo
} from "graphql"
import { isRecord } from "../OpenApiDocument.js"
import { argumentValue, isConnectionType, requestedCost } from "./GraphqlCost.js"
import { type AccessIndex, gidTypesIn, parseRequiredAccess, updateMutationOf } from "./ShopifyAccess.js"

/** Shopify answers at most 250 nodes a page and refuses a connection asked for more, or for neither `first` nor `last`. */
export const MAX_PAGE_SIZE = 250

export interface Deprecation {
  readonly kind: "field" | "argument" | "enum value" | "input field"
  readonly coordinate: string
  readonly reason: string
  readonly in: "document" | "variables"
}

/** One of `scopes` is needed, because of `at` (a type, a field or a mutation), as `sentence` says. */
export interface ScopeNeed {
  readonly scopes: ReadonlyArray<string>
  readonly at: string
  readonly sentence: string
}

export interface ProtectedRead {
  readonly coordinate: string
  readonly subject: string
  readonly content: string
}

export interface Judgement {
  readonly operationName: string
  readonly operation: string
  /** graphql-js's validation against the schema (unknown fields, wrong arguments, bad literals…). */
  readonly errors: ReadonlyArray<string>
  /** Variables that do not coerce to the types the document declares. */
  readonly variableErrors: ReadonlyArray<string>
  readonly deprecated: ReadonlyArray<Deprecation>
  readonly paging: ReadonlyArray<string>
  readonly cost: { readonly published: number; readonly listsByFirst: number; readonly unknown: ReadonlyArray<string> }
  readonly needs: ReadonlyArray<ScopeNeed>
  /** `requiredAccess` sentences this run cannot read, or an owner resource it cannot tell: a person must look. */
  readonly unreadableAccess: ReadonlyArray<string>
  readonly protectedReads: ReadonlyArray<ProtectedRead>
}

export interface JudgeContext {
  readonly schema: GraphQLSchema
  readonly access: AccessIndex
}

const OWNER_ARGUMENT = /^(id|ownerId|metafields)$/

/** Deprecated enum values and input fields inside a variable's value. */
const variableDeprecations = (type: GraphQLInputType, value: unknown, path: string, out: Array<Deprecation>): void => {
  const nullable = getNullableType(type)
  if (value === null || value === undefined) return
  if (isListType(nullable)) {
    if (Array.isArray(value)) value.forEach((item, i) => variableDeprecations(nullable.ofType, item, `${path}[${i}]`, out))
    else variableDeprecations(nullable.ofType, value, path, out)
    return
  }
  if (isEnumType(nullable) && typeof value === "string") {
    const reason = nullable.getValue(value)?.deprecationReason
    if (reason != null) out.push({ kind: "enum value", coordinate: `${nullable.name}.${value} (${path})`, reason, in: "variables" })
    return
  }
  if (isInputObjectType(nullable) && isRecord(value)) {
    const fields = nullable.getFields()
    for (const [name, child] of Object.entries(value)) {
      const field = fields[name]
      if (field === undefined) continue
      if (field.deprecationReason != null) {
        out.push({
          kind: "input field",
          coordinate: `${nullable.name}.${name} (${path}.${name})`,
          reason: field.deprecationReason,
          in: "variables"
        })
      }
      variableDeprecations(field.type, child, `${path}.${name}`, out)
    }
  }
}

/** Judges `text` as sent with `variables` (absent: judged as written, sizes given by variables unknown). */
export const judgeDocument = (ctx: JudgeContext, text: string, variables?: Readonly<Record<string, unknown>>): Judgement => {
  const { schema, access } = ctx
  let document: DocumentNode
  try {
    document = parse(text)
  } catch (error) {
    return emptyJudgement("(unparsable)", "?", [`not GraphQL: ${(error as Error).message}`])
  }
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
  const operationName = operation?.name?.value ?? "(anonymous)"
  const errors = validate(schema, document).map((e) => e.message)
  if (operation === undefined || errors.length > 0) return emptyJudgement(operationName, operation?.operation ?? "?", errors)

  const given = variables ?? {}
  const coerced = variables === undefined ? undefined : getVariableValues(schema, operation.variableDefinitions ?? [], given)
  const variableErrors = coerced?.errors?.map((e) => e.message) ?? []
  const deprecated: Array<Deprecation> = []
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type)
    if (type !== undefined && variables !== undefined) {
      variableDeprecations(
        type as GraphQLInputType,
        given[definition.variable.name.value],
        `$${definition.variable.name.value}`,
        deprecated
      )
    }
  }
  const paging: Array<string> = []
  const needs: Array<ScopeNeed> = []
  const unreadableAccess: Array<string> = []
  const protectedReads: Array<ProtectedRead> = []
  const argumentValues = coerced?.coerced ?? given

  const need = (sentence: string | undefined, at: string, owner?: () => ReadonlyArray<string>) => {
    if (sentence === undefined) return
    for (const requirement of parseRequiredAccess(sentence)) {
      if (requirement._tag === "AnyOf") needs.push({ scopes: requirement.scopes, at, sentence })
      else if (requirement._tag === "Unreadable") unreadableAccess.push(`${at}: "${requirement.text.trim()}"`)
      else {
        const owners = owner?.() ?? []
        if (owners.length === 0) unreadableAccess.push(`${at}: needs what mutating its owner needs, and no owner id was sent`)
        for (const type of owners) {
          const update = updateMutationOf(type)
          const ownerSentence = access.ofField("Mutation", update).requiredAccess
          if (ownerSentence === undefined) unreadableAccess.push(`${at}: its owner ${type} has no ${update} to take the access from`)
          else need(ownerSentence, `${at} on ${type} (as Mutation.${update})`)
        }
      }
    }
  }
  const ownersOf = (def: GraphQLField<unknown, unknown>, node: FieldNode) => () => [
    ...gidTypesIn(def.args.filter((a) => OWNER_ARGUMENT.test(a.name)).map((a) => argumentValue(def, node, a.name, argumentValues)))
  ]

  const typeInfo = new TypeInfo(schema)
  const typeNeeds = (type: GraphQLNamedType | undefined | null) => {
    if (type != null && isObjectType(type)) need(access.ofType(type.name), type.name)
  }
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType()
        const def = typeInfo.getFieldDef()
        if (parent == null || def == null) return
        const coordinate = `${parent.name}.${def.name}`
        if (def.deprecationReason != null) deprecated.push({ kind: "field", coordinate, reason: def.deprecationReason, in: "document" })
        const fieldAccess = access.ofField(parent.name, def.name)
        if (fieldAccess.protectedData !== undefined) protectedReads.push({ coordinate, ...fieldAccess.protectedData })
        const rootMutation = parent === schema.getMutationType()
        // A mutation on another resource that states no access of its own (tagsAdd) needs what mutating that resource needs, as metafieldsSet says.
        const sentence = fieldAccess.requiredAccess ??
          (rootMutation && def.args.some((a) => OWNER_ARGUMENT.test(a.name))
            ? "the same access level needed to mutate the owner resource"
            : undefined)
        need(sentence, coordinate, ownersOf(def, node))
        const named = getNamedType(def.type)
        if (isCompositeType(named)) typeNeeds(named)
        if (isCompositeType(named) && isConnectionType(named)) {
          const size = argumentValue(def, node, "first", argumentValues) ?? argumentValue(def, node, "last", argumentValues)
          const asked = node.arguments?.some((a) => a.name.value === "first" || a.name.value === "last") === true
          if (!asked) paging.push(`${coordinate}: a connection without first or last (Shopify refuses it)`)
          else if (typeof size === "number" && size > MAX_PAGE_SIZE) {
            paging.push(`${coordinate}: ${size} nodes asked, more than ${MAX_PAGE_SIZE}`)
          }
        }
      },
      Argument() {
        const arg = typeInfo.getArgument()
        const def = typeInfo.getFieldDef()
        if (arg?.deprecationReason != null) {
          deprecated.push({
            kind: "argument",
            coordinate: `${typeInfo.getParentType()?.name}.${def?.name}(${arg.name}:)`,
            reason: arg.deprecationReason,
            in: "document"
          })
        }
      },
      EnumValue(node) {
        const value = typeInfo.getEnumValue()
        const type = getNamedType(typeInfo.getInputType() ?? undefined)
        if (value?.deprecationReason != null) {
          deprecated.push({
            kind: "enum value",
            coordinate: `${type?.name}.${node.value}`,
            reason: value.deprecationReason,
            in: "document"
          })
        }
      },
      ObjectField(node) {
        const parent = getNamedType(typeInfo.getParentInputType() ?? undefined)
        const field = parent !== undefined && isInputObjectType(parent) ? parent.getFields()[node.name.value] : undefined
        if (field?.deprecationReason != null) {
          deprecated.push({
            kind: "input field",
            coordinate: `${parent!.name}.${field.name}`,
            reason: field.deprecationReason,
            in: "document"
          })
        }
      },
      InlineFragment(node) {
        if (node.typeCondition !== undefined) typeNeeds(schema.getType(node.typeCondition.name.value))
      },
      FragmentDefinition(node) {
        typeNeeds(schema.getType(node.typeCondition.name.value))
      }
    })
  )

  const published = requestedCost(schema, document, argumentValues, "published", operation.name?.value)
  const byFirst = requestedCost(schema, document, argumentValues, "listsByFirst", operation.name?.value)
  return {
    operationName,
    operation: operation.operation,
    errors,
    variableErrors,
    deprecated,
    paging,
    cost: { published: published.requested, listsByFirst: byFirst.requested, unknown: published.unknown },
    needs,
    unreadableAccess,
    protectedReads
  }
}

const emptyJudgement = (operationName: string, operation: string, errors: ReadonlyArray<string>): Judgement => ({
  operationName,
  operation,
  errors,
  variableErrors: [],
  deprecated: [],
  paging: [],
  cost: { published: 0, listsByFirst: 0, unknown: [] },
  needs: [],
  unreadableAccess: [],
  protectedReads: []
})

/** Whether a judgement breaks a rule (validation, variables, deprecation, paging, cost over `maxCost`, unreadable access). */
export const judgementFailures = (j: Judgement, maxCost: number): ReadonlyArray<string> => [
  ...j.errors.map((e) => `invalid: ${e}`),
  ...j.variableErrors.map((e) => `variables: ${e}`),
  ...j.deprecated.map((d) => `deprecated ${d.kind} ${d.coordinate}: ${d.reason}`),
  ...j.paging,
  ...(j.cost.published > maxCost ? [`requested cost ${j.cost.published} is over ${maxCost} (published rules)`] : []),
  ...j.cost.unknown.map((u) => `cost not known: ${u}`),
  ...j.unreadableAccess.map((u) => `access not readable: ${u}`)
]
