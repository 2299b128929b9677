// A small route table over node:http: "METHOD /path/:param" patterns.
import type { SimResponse } from "./wire.js"

export interface RouteContext {
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly body: unknown
}

/** v3: header credentials; v2: credentials in the body; admin: none, uncounted. */
export type RouteAuth = "v3" | "v2" | "admin"

export interface Route {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  readonly pattern: string
  readonly auth: RouteAuth
  readonly handle: (context: RouteContext) => SimResponse | Promise<SimResponse>
}

export const routeKey = (route: Route): string => `${route.method} ${route.pattern}`

export type RouteMatch =
  | { readonly kind: "found"; readonly route: Route; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "wrongMethod"; readonly pattern: string }
  | { readonly kind: "none" }

const matchPattern = (pattern: string, path: string): Record<string, string> | undefined => {
  const expected = pattern.split("/")
  const actual = path.split("/")
  if (expected.length !== actual.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i] as string
    const got = actual[i] as string
    if (want.startsWith(":")) {
      if (got === "") return undefined
      try {
        params[want.slice(1)] = decodeURIComponent(got)
      } catch {
        return undefined
      }
    } else if (want !== got) {
      return undefined
    }
  }
  return params
}

/** Literal segments win over parameters ("/orders/draft" before "/orders/:order_id"): routes are tried in table order. */
export const matchRoute = (routes: ReadonlyArray<Route>, method: string, path: string): RouteMatch => {
  let wrongMethod: string | undefined
  for (const route of routes) {
    const params = matchPattern(route.pattern, path)
    if (params === undefined) continue
    if (route.method === method) return { kind: "found", route, params }
    wrongMethod ??= route.pattern
  }
  return wrongMethod === undefined ? { kind: "none" } : { kind: "wrongMethod", pattern: wrongMethod }
}
