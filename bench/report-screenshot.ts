// Opens a reconciliation report in headless Chromium (the Debian package, plain child_process:
// nothing downloaded), checks that it rendered — charts drawn (their bar colours counted in the
// screenshot's pixels), no console message, nothing fetched — and saves the screenshot.
//
//   npm run build && node dist/bench/report-screenshot.js [--html FILE] [--out PNG]
//   (without --html it renders the seeded two-store day of test/reports/scenario.ts)
//
// Writes bench/results/report-screenshot.png, .html (what was rendered) and .json (the checks).
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { promisify } from "node:util"
import { chromium } from "playwright-core"
import * as zlib from "node:zlib"
import { buildReport } from "../src/reports/ReportBuilder.js"
import { reportHtml } from "../src/reports/ReportHtml.js"
import { CHART_COLORS } from "../src/reports/SvgCharts.js"
import { scenarioInput } from "../test/reports/scenario.js"

export const CHROMIUM = "/usr/bin/chromium"

/** Debian's Chromium, headless, as every browser test and bench drives it (never a downloaded browser). */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
  })
const run = promisify(execFile)

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--hide-scrollbars",
  "--force-device-scale-factor=1"
]

/** Pixels of an 8-bit, non-interlaced PNG (RGB or RGBA), decoded with node's zlib: [r, g, b] per pixel. */
export const decodePng = (
  bytes: Buffer
): { readonly width: number; readonly height: number; readonly rgb: (x: number, y: number) => readonly [number, number, number] } => {
  if (bytes.subarray(0, 8).toString("hex") !== "89504e470d0a1a0a") throw new Error("not a PNG")
  let offset = 8
  let width = 0, height = 0, channels = 0
  const data: Array<Buffer> = []
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.subarray(offset + 4, offset + 8).toString("ascii")
    const chunk = bytes.subarray(offset + 8, offset + 8 + length)
    if (type === "IHDR") {
      width = chunk.readUInt32BE(0)
      height = chunk.readUInt32BE(4)
      const [depth, colour, , , interlace] = [chunk[8], chunk[9], chunk[10], chunk[11], chunk[12]]
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) {
        throw new Error(`unsupported PNG (depth ${depth}, colour ${colour}, interlace ${interlace})`)
      }
      channels = colour === 6 ? 4 : 3
    }
    if (type === "IDAT") data.push(chunk)
    offset += 12 + length
  }
  const raw = zlib.inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0
      const paeth = () => {
        const p = left + up - upLeft
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)]
        return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
      }
      const predictor = [0, left, up, (left + up) >> 1, filter === 4 ? paeth() : 0][filter]!
      pixels[y * stride + x] = (value + predictor) & 0xff
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => [pixels[y * stride + x * channels]!, pixels[y * stride + x * channels + 1]!, pixels[y * stride + x * channels + 2]!]
  }
}

const hex = (colour: string) => [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16)) as [number, number, number]

export interface RenderCheck {
  readonly screenshot: string
  readonly width: number
  readonly height: number
  /** SVG charts and bars in the DOM Chromium built. */
  readonly charts: number
  readonly bars: number
  /** Pixels painted in each chart colour. */
  readonly chartPixels: Readonly<Record<keyof typeof CHART_COLORS, number>>
  /** What the page wrote to the console (errors, failed loads): expected empty. */
  readonly consoleMessages: ReadonlyArray<string>
}

/** Renders `htmlFile` twice: once for the DOM (and console), once for the screenshot. */
export const renderInChromium = async (
  htmlFile: string,
  screenshot: string,
  size = { width: 1280, height: 4200 }
): Promise<RenderCheck> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-chromium-"))
  const url = pathToFileURL(path.resolve(htmlFile)).href
  const common = [...FLAGS, `--user-data-dir=${profile}`, `--window-size=${size.width},${size.height}`]
  try {
    const dom = await run(CHROMIUM, [...common, "--enable-logging=stderr", "--v=0", "--dump-dom", url], {
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024
    })
    fs.mkdirSync(path.dirname(screenshot), { recursive: true })
    await run(CHROMIUM, [...common, `--screenshot=${path.resolve(screenshot)}`, url], { timeout: 60_000 })
    const png = decodePng(fs.readFileSync(screenshot))
    const wanted = (Object.keys(CHART_COLORS) as Array<keyof typeof CHART_COLORS>).map((name) => [name, hex(CHART_COLORS[name])] as const)
    const chartPixels = Object.fromEntries(wanted.map(([name]) => [name, 0])) as Record<keyof typeof CHART_COLORS, number>
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const [r, g, b] = png.rgb(x, y)
        for (const [name, [wr, wg, wb]] of wanted) if (r === wr && g === wg && b === wb) chartPixels[name]++
      }
    }
    return {
      screenshot: path.resolve(screenshot),
      width: png.width,
      height: png.height,
      charts: dom.stdout.match(/<svg class="chart"/g)?.length ?? 0,
      bars: dom.stdout.match(/<rect class="bar"/g)?.length ?? 0,
      chartPixels,
      consoleMessages: dom.stderr.split("\n").filter((line) => /:CONSOLE[:(]/.test(line))
    }
  } finally {
    fs.rmSync(profile, { recursive: true, force: true })
  }
}

/** What a reader sees of a page at one window width, measured by Chromium itself. */
export interface PageInspection {
  /** The layout viewport's width (window.innerWidth). */
  readonly viewportWidth: number
  /** document.scrollingElement.scrollWidth: wider than the viewport means sideways scrolling. */
  readonly scrollWidth: number
  /** The h1's text and the document title. */
  readonly heading: string
  readonly documentTitle: string
  /** The whole page's text as rendered (document.body.innerText). */
  readonly text: string
  /** Every link: the section it is in, where it goes, its text. */
  readonly links: ReadonlyArray<{ readonly section: string; readonly href: string; readonly text: string }>
  /** Elements whose box sticks out past the viewport's right edge (to say what scrolls, when something does). */
  readonly overflowing: ReadonlyArray<string>
  readonly consoleMessages: ReadonlyArray<string>
}

// Runs in the loaded page: what a reader sees, measured by the browser's own layout.
const INSPECT = `(() => {
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const width = window.innerWidth;
  return {
    viewportWidth: width,
    scrollWidth: document.scrollingElement.scrollWidth,
    heading: document.querySelector("h1")?.innerText ?? "",
    documentTitle: document.title,
    text: document.body.innerText,
    links: [...document.querySelectorAll("a[href]")].map((a) => ({ section: a.closest("section")?.id ?? "", href: a.href, text: a.innerText })),
    overflowing: [...document.body.querySelectorAll("*")].filter((el) => el.getBoundingClientRect().right > width + 0.5).slice(0, 10).map(describe)
  };
})()`

/**
 * Loads `htmlFile` in headless Chromium (Debian's, driven by playwright-core) emulating a device
 * `width` × `height` CSS pixels wide (a phone: 390 × 844, touch, its viewport meta honoured) and
 * reads what it rendered; with `screenshot`, saves the whole page as PNG.
 */
export const inspectInChromium = async (
  htmlFile: string,
  size = { width: 390, height: 844 },
  screenshot?: string
): Promise<PageInspection> => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS.filter((f) => f !== "--headless") })
  try {
    const mobile = size.width < 600
    const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1, isMobile: mobile, hasTouch: mobile })
    const page = await context.newPage()
    const consoleMessages: Array<string> = []
    page.on("console", (message) => consoleMessages.push(`${message.type()}: ${message.text()}`))
    page.on("pageerror", (error) => consoleMessages.push(`pageerror: ${error.message}`))
    await page.goto(pathToFileURL(path.resolve(htmlFile)).href, { waitUntil: "load", timeout: 60_000 })
    const value = await page.evaluate(INSPECT) as Omit<PageInspection, "consoleMessages">
    if (screenshot !== undefined) {
      fs.mkdirSync(path.dirname(screenshot), { recursive: true })
      await page.screenshot({ path: screenshot, fullPage: true })
    }
    return { ...value, consoleMessages }
  } finally {
    await browser.close()
  }
}

const main = async () => {
  // The repository: the nearest folder up with a package.json (run from bench/, dist/bench/ or another build folder).
  let root = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(root, "package.json")) && path.dirname(root) !== root) root = path.dirname(root)
  const { values } = parseArgs({ options: { html: { type: "string" }, out: { type: "string" } } })
  const out = values.out ?? path.join(root, "bench", "results", "report-screenshot.png")
  let html = values.html
  if (html === undefined) {
    html = out.replace(/\.png$/, ".html")
    fs.mkdirSync(path.dirname(html), { recursive: true })
    fs.writeFileSync(html, reportHtml(buildReport(scenarioInput())))
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  const started = Date.now()
  const check = await renderInChromium(html, out)
  const result = {
    ...check,
    html: path.relative(root, path.resolve(html)),
    screenshot: path.relative(root, check.screenshot),
    millis: Date.now() - started
  }
  fs.writeFileSync(out.replace(/\.png$/, ".json"), `${JSON.stringify(result, null, 2)}\n`)
  console.log(JSON.stringify(result, null, 2))
  const drawn = check.charts > 0 && check.bars > 0 && Object.values(check.chartPixels).filter((n) => n > 100).length >= 3
  if (!drawn || check.consoleMessages.length > 0) {
    console.error("the report did not render as expected")
    process.exitCode = 1
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
}
