import { html } from "htm/preact"
import type { VNode } from "preact"
import { render } from "preact-render-to-string"

/**
 * The console's pages are preact elements written with htm and rendered to a string on the
 * server: every value is escaped by construction (text and attributes alike), no build step,
 * and the browser runs no script of ours (htmx, served by the daemon, does the live parts).
 */
export { html }
export type Html = VNode

export const renderDocument = (node: Html) => `<!doctype html>${render(node)}`
export const renderFragment = (node: Html) => render(node)

export type Section = "overview" | "queue" | "orders" | "pay" | "order" | "mappings" | "reports" | "rehearse"

export interface Chrome {
  readonly title: string
  readonly section: Section
  readonly user: string
  readonly csrfToken: string
  /** Whether a login is needed (a logout button makes sense). */
  readonly loggedIn: boolean
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
  { section: "rehearse", href: "/console/rehearse", label: "Rehearse" }
]

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
    NAV.map((item) =>
      html`<a href=${item.href} class=${item.section === chrome.section ? "current" : ""} aria-current=${
        item.section === chrome.section ? "page" : undefined
      }>${item.label}</a>`
    )
  }
        </nav>
        <form method="post" action="/console/logout" class="who">
          <span>${chrome.user}</span>
          <input type="hidden" name="_csrf" value=${chrome.csrfToken} />
          ${chrome.loggedIn ? html`<button type="submit">Log out</button>` : null}
        </form>
      </header>
      <main>${content}</main>
    </body>
  </html>`)

export const loginPage = (message: string | undefined) =>
  renderDocument(html`
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Log in \u00b7 podsync</title>
      <link rel="stylesheet" href="/console/assets/console.css" />
    </head>
    <body class="login">
      <form method="post" action="/console/login" class="card">
        <h1>podsync console</h1>
        ${message === undefined ? null : html`<p class="flash refused" role="alert">${message}</p>`}
        <label>User <input name="user" autocomplete="username" required /></label>
        <label>Password or token <input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit">Log in</button>
      </form>
    </body>
  </html>`)

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
