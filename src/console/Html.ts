import { html } from "htm/preact"
import { cloneElement, type ComponentChildren, isValidElement, type VNode } from "preact"
import { render } from "preact-render-to-string"
import { DRY_RUN_BANNER } from "../config/DryRun.js"
import { type ConsoleRole, mayPost, roleNeededFor, ROLE_WORDS } from "./ConsoleRoles.js"

/**
 * The console's pages are preact elements written with htm and rendered to a string on the
 * server: every value is escaped by construction (text and attributes alike), no build step,
 * and the browser runs no script of ours (htmx, served by the daemon, does the live parts).
 */
export { html }
export type Html = VNode

export const renderDocument = (node: Html) => `<!doctype html>${render(node)}`
export const renderFragment = (node: Html) => render(node)

export type Section = "overview" | "queue" | "orders" | "pay" | "order" | "mappings" | "reports" | "audit" | "dry-run" | "rehearse"

export interface Chrome {
  readonly title: string
  readonly section: Section
  readonly user: string
  readonly csrfToken: string
  /** Whether a login is needed (a logout button makes sense). */
  readonly loggedIn: boolean
  /** The daemon runs dry: every page says so, and links its would-be drafts. */
  readonly dryRun?: boolean
  /** What the person may do: forms they may not send show disabled buttons. Absent: admin. */
  readonly role?: ConsoleRole | undefined
}

// htmx reads its configuration here: no eval (the Content-Security-Policy forbids it anyway) and
// no style element of its own (styles come from the daemon's stylesheet only).
const HTMX_CONFIG = JSON.stringify({ allowEval: false, includeIndicatorStyles: false, allowScriptTags: false })

const NAV: ReadonlyArray<{ readonly section: Section; readonly href: string; readonly label: string }> = [
  { section: "overview", href: "/console", label: "Overview" },
  { section: "queue", href: "/console/queue", label: "Needs a person" },
  { section: "orders", href: "/console/orders", label: "All orders" },
  { section: "pay", href: "/console/pay", label: "What to pay" },
  { section: "mappings", href: "/console/mappings", label: "Mappings" },
  { section: "reports", href: "/console/reports", label: "Reports" },
  { section: "rehearse", href: "/console/rehearse", label: "Rehearse" },
  { section: "audit", href: "/console/audit", label: "Audit" }
]

const DRY_RUN_NAV = { section: "dry-run" as const, href: "/console/dry-run", label: "Would-be drafts" }

/** The buttons of a form, disabled with why (the guard refuses the POST anyway). */
const disabledButtons = (node: unknown, why: string): ComponentChildren => {
  if (Array.isArray(node)) return node.map((n) => disabledButtons(n, why))
  if (!isValidElement(node)) return node as ComponentChildren
  const props = node.props as { readonly children?: unknown; readonly type?: unknown }
  if (node.type === "button" || (node.type === "input" && props.type === "submit")) {
    return cloneElement(node, { disabled: true, title: why })
  }
  return props.children === undefined ? node : cloneElement(node, {}, disabledButtons(props.children, why))
}

/** The page as `role` may use it: each form it may not send has its buttons disabled, saying the role it needs. */
export const forRole = (node: unknown, role: ConsoleRole): ComponentChildren => {
  if (Array.isArray(node)) return node.map((n) => forRole(n, role))
  if (!isValidElement(node)) return node as ComponentChildren
  const props = node.props as { readonly children?: unknown; readonly method?: unknown; readonly action?: unknown }
  if (node.type === "form" && props.method === "post" && typeof props.action === "string" && !mayPost(role, props.action)) {
    const why = `needs ${roleNeededFor(props.action)}: you are ${role}`
    return cloneElement(
      node,
      { "data-needs-role": roleNeededFor(props.action) },
      html`<span class="muted needs-role" data-testid="needs-role">${why}</span>`,
      disabledButtons(props.children, why)
    )
  }
  return props.children === undefined ? node : cloneElement(node, {}, forRole(props.children, role))
}

export const page = (chrome: Chrome, content: Html) =>
  renderDocument(html`
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="htmx-config" content=${HTMX_CONFIG} />
      <title>${chrome.title} \u00b7 podsync</title>
      <link rel="stylesheet" href="/console/assets/console.css" />
      <script src="/console/assets/htmx.min.js" defer></script>
    </head>
    <body hx-headers=${JSON.stringify({ "x-csrf-token": chrome.csrfToken })}>
      <header class="top">
        <span class="brand">podsync</span>
        <nav>
          ${
    (chrome.dryRun === true ? [...NAV, DRY_RUN_NAV] : NAV).map((item) =>
      html`<a href=${item.href} class=${item.section === chrome.section ? "current" : ""} aria-current=${
        item.section === chrome.section ? "page" : undefined
      }>${item.label}</a>`
    )
  }
        </nav>
        <form method="post" action="/console/logout" class="who">
          <span>${chrome.user}</span>
          ${chrome.role === undefined ? null : html`<span class="muted" data-testid="role">${chrome.role}</span>`}
          <input type="hidden" name="_csrf" value=${chrome.csrfToken} />
          ${chrome.loggedIn ? html`<button type="submit">Log out</button>` : null}
        </form>
      </header>
      ${
    chrome.dryRun === true
      ? html`<div class="dry-run-banner" role="status"><strong>${DRY_RUN_BANNER}</strong> to the POD service or the stores: podsync shows what it would send (<a href="/console/dry-run">would-be drafts</a>).</div>`
      : null
  }
      <main>
        ${
    chrome.role === "viewer"
      ? html`<p class="muted" data-testid="role-note">You are a viewer: you ${ROLE_WORDS.viewer}. An operator ${ROLE_WORDS.operator}.</p>`
      : null
  }
        ${chrome.role === undefined || chrome.role === "admin" ? content : forRole(content, chrome.role)}
      </main>
    </body>
  </html>`)

/**
 * A page outside the console's chrome (the login, a refusal, a failure): the stylesheet and, unless
 * told otherwise, a header that leads back to the overview.
 */
export const plainPage = (title: string, content: Html, options: { readonly bodyClass?: string; readonly header?: boolean } = {}) =>
  renderDocument(html`
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} \u00b7 podsync</title>
      <link rel="stylesheet" href="/console/assets/console.css" />
    </head>
    <body class=${options.bodyClass}>
      ${options.header === false ? null : html`<header class="top"><a class="brand" href="/console">podsync</a></header>`}
      ${options.header === false ? content : html`<main>${content}</main>`}
    </body>
  </html>`)

const aRole = (role: ConsoleRole) => `${role === "viewer" ? "a" : "an"} ${role}`
const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`

/** A POST the person's role may not send: who they are, what it needs, nothing done. */
export const roleRefusalPage = (refused: {
  readonly user: string
  readonly role: ConsoleRole
  readonly needed: ConsoleRole
  readonly path: string
}) =>
  plainPage(
    "Not allowed",
    html`
        <h1>Not allowed</h1>
        <p class="flash refused" role="alert" data-testid="refused">
          You are ${refused.user}, ${aRole(refused.role)}: this needs ${aRole(refused.needed)}. Nothing was done.
        </p>
        <p>${capitalized(aRole(refused.role))} ${ROLE_WORDS[refused.role]}; ${aRole(refused.needed)} ${
      ROLE_WORDS[refused.needed]
    }. Whoever runs podsync sets the roles (console.auth.users, console.proxy.roles). The attempt is on the audit page.</p>
        <p><a href="/console">Back to the overview</a> \u00b7 <a href="/console/audit">Audit</a></p>
      `
  )

export const loginPage = (message: string | undefined) =>
  plainPage(
    "Log in",
    html`
      <form method="post" action="/console/login" class="card">
        <h1>podsync console</h1>
        ${message === undefined ? null : html`<p class="flash refused" role="alert">${message}</p>`}
        <label>User <input name="user" autocomplete="username" required /></label>
        <label>Password or token <input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit">Log in</button>
      </form>
    `,
    { bodyClass: "login", header: false }
  )

/** "3 h 20 min", "12 min", "40 s": how long something has waited. */
export const ageText = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  if (s < 90) return `${s} s`
  const minutes = Math.round(s / 60)
  if (minutes < 90) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ${minutes % 60} min`
  return `${Math.floor(hours / 24)} d ${hours % 24} h`
}
