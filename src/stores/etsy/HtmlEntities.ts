/**
 * Etsy returns text HTML-encoded ("13 O&#39;Connell Street",
 * etsy/open-api#446): addresses, titles, variation values, buyer messages.
 * Left encoded, an apostrophe becomes "&#39;" on a shipping label and an "&"
 * in a personalised design URL becomes "&amp;". This decodes numeric
 * references and the named entities Etsy uses; anything else stays as is.
 */

const named: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0"
}

const fromCodePoint = (code: number, original: string): string =>
  Number.isInteger(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
    ? String.fromCodePoint(code)
    : original

export const decodeHtmlEntities = (text: string): string =>
  text.includes("&")
    ? text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, (match, body: string) => {
      if (body.startsWith("#x") || body.startsWith("#X")) return fromCodePoint(Number.parseInt(body.slice(2), 16), match)
      if (body.startsWith("#")) return fromCodePoint(Number.parseInt(body.slice(1), 10), match)
      return named[body] ?? match
    })
    : text
