/** The console's one stylesheet, served as /console/assets/console.css (no inline styles: the CSP forbids them). */
export const CONSOLE_CSS = `
:root { --ink: #1d2433; --muted: #5b6578; --line: #dfe3ea; --bg: #f6f7f9; --card: #fff; --warn: #b54708; --warn-bg: #fff4e5;
  --bad: #b42318; --bad-bg: #fee4e2; --ok: #067647; --ok-bg: #dcfae6; --accent: #2e5aac; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; background: var(--ink); color: #fff; flex-wrap: wrap; }
header.top a { color: #cfd8ea; text-decoration: none; margin-right: 1rem; }
header.top a.current { color: #fff; font-weight: 600; border-bottom: 2px solid #fff; }
.brand { font-weight: 700; letter-spacing: .02em; }
.who { margin-left: auto; display: flex; gap: .6rem; align-items: center; }
.who button { background: transparent; color: #fff; border: 1px solid #8793a8; }
.dry-run-banner { padding: .5rem 1.2rem; background: var(--warn-bg); color: var(--warn); border-bottom: 1px solid var(--warn); overflow-wrap: anywhere; }
.dry-run-banner a { color: var(--warn); }
ul.lines { margin: 0; padding-left: 1.1rem; }
main { padding: 1.2rem; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; } h2 { font-size: 1.1rem; margin: 1.4rem 0 .6rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: .8rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; min-width: 0; overflow-wrap: anywhere; }
a.card { color: inherit; text-decoration: none; }
.card .n { font-size: 1.8rem; font-weight: 700; } .card .l { color: var(--muted); font-size: .85rem; }
.card.attention { border-color: var(--warn); background: var(--warn-bg); } .card.attention .n { color: var(--warn); }
.flow { display: flex; align-items: stretch; gap: .4rem; flex-wrap: wrap; }
.flow .step { flex: 1 1 120px; } .flow .arrow { align-self: center; color: var(--muted); }
.flow .side { display: block; margin-top: .3rem; font-size: .85rem; color: var(--warn); font-weight: 600; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f5; font-size: .85rem; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td { overflow-wrap: break-word; }
td .muted, td code, td .pod, .flash li, li code { overflow-wrap: anywhere; }
.flash pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.table-wrap { max-width: 100%; overflow-x: auto; }
.money-tables { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 440px), 1fr)); gap: .8rem; align-items: start; }
table.money caption { text-align: left; font-weight: 600; padding: .3rem 0; }
table.money td.num { white-space: nowrap; } table.money tr.total td { font-weight: 600; background: #f8fafc; }
table.money th[scope="row"] { background: #fff; color: var(--ink); font-size: .85rem; }
.pod { font-size: .85rem; margin-top: .2rem; }
.bad { color: var(--bad); } .muted { color: var(--muted); font-size: .9rem; }
.flash { padding: .6rem .8rem; border-radius: 6px; margin: 0 0 1rem; background: var(--ok-bg); color: var(--ok); }
.flash.refused { background: var(--bad-bg); color: var(--bad); }
.flash ul { margin: .3rem 0 0; padding-left: 1.2rem; }
.group { margin-bottom: 1.2rem; } .group h2 { display: flex; gap: .6rem; align-items: baseline; }
.group .what { color: var(--muted); font-weight: 400; font-size: .9rem; }
.pill { display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .8rem; background: #eef1f5; }
.pill.warn { background: var(--warn-bg); color: var(--warn); }
button { font: inherit; padding: .3rem .7rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
.actions { display: flex; gap: .4rem; flex-wrap: wrap; }
.filters { display: flex; gap: .8rem; align-items: end; flex-wrap: wrap; margin-bottom: 1rem; }
.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
select, input { font: inherit; padding: .3rem .4rem; border: 1px solid var(--line); border-radius: 6px; }
textarea { font: inherit; padding: .3rem .4rem; border: 1px solid var(--line); border-radius: 6px; max-width: 100%; box-sizing: border-box; }
.bulk { position: sticky; bottom: 0; background: var(--bg); padding: .6rem 0; display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--line); }
.timeline li { margin: 0 0 .8rem; padding-left: 1rem; position: relative; }
.timeline li::before { content: ""; position: absolute; left: -8px; top: .35rem; width: 13px; height: 13px; border-radius: 50%; background: var(--accent); }
.timeline li.person::before { background: var(--warn); }
.timeline .when { color: var(--muted); font-size: .85rem; }
details pre { background: #0f172a; color: #e2e8f0; padding: .7rem; border-radius: 6px; overflow: auto; font-size: .8rem; max-height: 28rem; }
.scroll { overflow-x: auto; }
.order-facts { margin-top: 1rem; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); } .break { overflow-wrap: anywhere; } .order-facts h2 { margin-top: 0; } .order-facts dl { margin: 0; } .order-facts dd { margin: 0 0 .4rem; }
.order-facts dt { color: var(--muted); font-size: .85rem; } address { font-style: normal; } .note { overflow-wrap: anywhere; }
.designs { display: flex; gap: .5rem; flex-wrap: wrap; } .design { display: inline-flex; flex-direction: column; align-items: center; font-size: .8rem; }
.design img { width: 64px; height: 64px; object-fit: contain; background: #eef1f5; border: 1px solid var(--line); border-radius: 4px; }
ul.warnings, ul.attributes { list-style: none; padding: 0; margin: .3rem 0 0; } ul.warnings li { display: block; margin-top: .3rem; border-radius: 6px; }
ul.attributes li { overflow-wrap: anywhere; font-size: .85rem; }
body.login { display: grid; place-items: center; min-height: 100vh; }
body.login .card { width: min(360px, 92vw); display: flex; flex-direction: column; gap: .8rem; }
body.login label { display: flex; flex-direction: column; gap: .2rem; }
.scroll { overflow-x: auto; max-width: 100%; } .scroll table { min-width: 40rem; } td.wrap { overflow-wrap: anywhere; min-width: 8rem; }
.pager { display: flex; gap: 1rem; margin: .8rem 0; flex-wrap: wrap; }
.filters input[type=search] { width: 18rem; max-width: 100%; } .filters label { max-width: 100%; }
.pod-products { grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); } .pod-product { display: flex; flex-direction: column; gap: .25rem; }
.pod-product.chosen, tr.chosen td { border-color: var(--accent); background: #eef3fc; } .swatches { display: flex; gap: 3px; flex-wrap: wrap; }
img.product { width: 100%; max-height: 140px; object-fit: contain; background: #eef1f5; border-radius: 4px; } span.product { display: block; }
img.design-thumb { width: 72px; height: 72px; object-fit: contain; background: #eef1f5; border: 1px solid var(--line); border-radius: 4px; }
.designs-form { margin-top: 1rem; } .designs-form input { width: 26rem; max-width: 100%; } .designs-form .design { align-self: center; max-width: 22rem; }
.fixes { margin-top: 1rem; } .fix { margin-top: .6rem; } .fix-form { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .5rem .8rem; margin-top: .5rem; }
.fix-form label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); min-width: 0; }
.fix-form input, .fix-form select { width: 100%; max-width: 100%; box-sizing: border-box; } .fix-form p, .fix-form button { grid-column: 1 / -1; justify-self: start; }
@media (max-width: 640px) { main { padding: .6rem; } th, td { padding: .35rem .4rem; } .hide-narrow { display: none; } }
`
