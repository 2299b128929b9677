import { CONSOLE_ROLES, type ConsoleRole } from "../config/ConsoleConfig.js"

/**
 * What each role of the team may do in the console (issue 34, "A team"), decided in one place:
 * every POST route and the role it needs. The guard (ConsoleGuard.admit) refuses a POST whose
 * caller's role is lower before any work, and the pages disable the buttons of forms a role may
 * not send. A POST route missing here needs admin, and a test fails until it is listed.
 */

export type { ConsoleRole }
export { CONSOLE_ROLES }

const RANK: Readonly<Record<ConsoleRole, number>> = { viewer: 0, operator: 1, admin: 2 }

export const atLeast = (role: ConsoleRole, needed: ConsoleRole) => RANK[role] >= RANK[needed]

/** The higher of two roles. */
export const higher = (a: ConsoleRole, b: ConsoleRole): ConsoleRole => (RANK[a] >= RANK[b] ? a : b)

/** Every POST route of the console: the role it needs, and what it does in the seller's words (the audit page's refusals). */
export const POST_ROUTES: Readonly<Record<string, { readonly role: ConsoleRole; readonly what: string }>> = {
  "/console/logout": { role: "viewer", what: "log out" },
  // Acting on orders: retry, release / re-plan, not a POD order, mark handled.
  "/console/queue/act": { role: "operator", what: "act on orders" },
  "/console/reports/run": { role: "operator", what: "run a report" },
  // Reads the store and asks price quotes: nothing is written, but it spends the budgets' background lane.
  "/console/rehearse/run": { role: "operator", what: "rehearse a store" },
  // Fixing one order in place (kept by podsync; a drafted order's lines through the POD draft update).
  "/console/order/fix-address": { role: "operator", what: "correct an order's shipping address" },
  "/console/order/fix-variant": { role: "operator", what: "choose a line's POD variant" },
  // One row of a mapping file at a time, each checked as it is written.
  "/console/mappings/add": { role: "operator", what: "add a mapping row" },
  "/console/mappings/edit": { role: "operator", what: "change a mapping row" },
  // A store product's variants mapped in one step, checked as the rows are written.
  "/console/mappings/products/apply": { role: "operator", what: "map a product's variants" },
  // A whole mapping file at once.
  "/console/mappings/upload": { role: "admin", what: "upload a mapping file" },
  "/console/mappings/upload/apply": { role: "admin", what: "write an uploaded mapping file" },
  "/console/mappings/merge": { role: "admin", what: "add the suggested mapping rows" }
}

/** POST routes the guard does not admit: the login form (its own limits: one per address, 5 failures in 15 min). */
export const POSTS_BEFORE_LOGIN: ReadonlyArray<string> = ["/console/login"]

/** The role a POST to `path` needs; a route not listed needs admin. */
export const roleNeededFor = (path: string): ConsoleRole => POST_ROUTES[path]?.role ?? "admin"

/** Whether `role` may send a form to `path`. */
export const mayPost = (role: ConsoleRole, path: string) => atLeast(role, roleNeededFor(path))

/** What a role may do, in the seller's words. */
export const ROLE_WORDS: Readonly<Record<ConsoleRole, string>> = {
  viewer: "sees every page and acts on nothing",
  operator:
    "acts on orders (retry, release, hold, not a POD order, mark handled, fix an address or a line's variant), adds and changes mapping rows, runs reports",
  admin: "also uploads whole mapping files and adds the suggested rows"
}

/** A role named by the trusted proxy's mapping: `roles` keys are user names, or groups written `group:<name>`. */
export interface ProxyRoles {
  readonly roles: Readonly<Record<string, ConsoleRole>>
  readonly defaultRole: ConsoleRole
}

/** The role of a person the proxy names: the highest of their name's and their groups' roles, else the default. */
export const proxyRoleOf = (proxy: ProxyRoles, user: string, groups: ReadonlyArray<string>): ConsoleRole => {
  const named = [proxy.roles[user], ...groups.map((g) => proxy.roles[`group:${g}`])].filter((r) => r !== undefined)
  return named.length === 0 ? proxy.defaultRole : named.reduce(higher)
}

/** The default role of people the proxy names: as set; absent, viewer once `roles` names anyone, else admin (as before roles). */
export const defaultProxyRole = (roles: Readonly<Record<string, ConsoleRole>> | undefined, set: ConsoleRole | undefined): ConsoleRole =>
  set ?? (roles !== undefined && Object.keys(roles).length > 0 ? "viewer" : "admin")

/** A groups header's value: comma-separated, trimmed, at most 64 groups. */
export const groupsOf = (header: string | undefined): ReadonlyArray<string> =>
  header === undefined ? [] : header.split(",").map((g) => g.trim()).filter((g) => g !== "" && g.length <= 128).slice(0, 64)
