/**
 * podsync's layers, written once (ARCHITECTURE.md, "Layout"; the note of the renovation says
 * where the code's shape refines it). Each folder of `src/` may import only the folders listed
 * for it; the lists form a DAG (each folder lists only folders above it in this table), so the
 * folder import graph is acyclic by construction. `npm test` runs `npm run layers`.
 */
const LAYERS = [
  // The vocabulary: orders, states, money, the mapping table's model, reference ids.
  ["domain", []],
  // The POD service's published records: pure schema values.
  ["pod/schemas", ["domain"]],
  ["config", ["domain"]],
  // Pure decisions over the domain (planning, matching, the mapping CSV; report builders).
  ["mapping", ["domain", "pod/schemas"]],
  ["reports", ["domain", "pod/schemas"]],
  // Adapters: peers that never import each other.
  ["db", ["domain"]],
  ["pod", ["domain", "pod/schemas"]],
  ["stores", ["domain"]],
  ["budget", ["domain"]],
  // SQL over the adapters' database, answering domain types.
  ["repos", ["domain", "pod/schemas", "db", "budget"]],
  ["schedule", ["domain", "db"]],
  ["observability", ["domain", "pod/schemas", "config", "db", "pod", "stores", "budget", "repos"]],
  // Services that compose: the pipeline's stages and loops, the report service.
  ["pipeline", ["domain", "pod/schemas", "config", "mapping", "db", "pod", "stores", "budget", "repos", "schedule", "observability"]],
  ["reporting", [
    "domain",
    "pod/schemas",
    "config",
    "mapping",
    "reports",
    "db",
    "pod",
    "stores",
    "budget",
    "repos",
    "schedule",
    "observability"
  ]],
  // Alerts: the outbox's sender, its channels and the conditions it watches.
  ["alerts", ["domain", "pod/schemas", "config", "db", "repos", "schedule", "observability"]],
  // The web console (issue 15): pages and actions over the services the CLI uses, served by http.
  ["console", [
    "domain",
    "pod/schemas",
    "config",
    "mapping",
    "reports",
    "db",
    "pod",
    "stores",
    "budget",
    "repos",
    "schedule",
    "observability",
    "pipeline",
    "reporting"
  ]],
  // The daemon's HTTP surface.
  ["http", [
    "console",
    "domain",
    "pod/schemas",
    "config",
    "mapping",
    "reports",
    "db",
    "pod",
    "stores",
    "budget",
    "repos",
    "schedule",
    "observability",
    "pipeline",
    "reporting",
    "alerts"
  ]],
  // The composition root: layers wired once, for the daemon and every command.
  ["app", [
    "console",
    "domain",
    "pod/schemas",
    "config",
    "mapping",
    "reports",
    "db",
    "pod",
    "stores",
    "budget",
    "repos",
    "schedule",
    "observability",
    "pipeline",
    "reporting",
    "alerts",
    "http"
  ]],
  ["cli", [
    "domain",
    "pod/schemas",
    "config",
    "mapping",
    "reports",
    "db",
    "pod",
    "stores",
    "budget",
    "repos",
    "schedule",
    "observability",
    "pipeline",
    "reporting",
    "alerts",
    "http",
    "app",
    "simulator"
  ]],
  // The simulators stand for the outside world: they import no daemon code.
  ["simulator", []]
]

const folder = (name) => (name === "pod" ? "^src/pod/(?!schemas/)" : `^src/${name}/`)

const layerRules = LAYERS.map(([name, allowed]) => ({
  name: `layer-${name.replace("/", "-")}`,
  comment: `src/${name} may import only ${allowed.length > 0 ? allowed.map((a) => `src/${a}`).join(", ") : "its own folder"}`,
  severity: "error",
  from: { path: folder(name) },
  to: { path: "^src/", pathNot: [name, ...allowed].map(folder) }
}))

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "no-circular",
      comment: "modules do not import each other in a circle",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    {
      name: "stores-behind-their-port",
      comment: "a platform's connector is reached through StoreConnector; only the composition root builds one",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/stores/", "^src/app/"] },
      to: { path: "^src/stores/[^/]+/" }
    },
    {
      name: "simulators-only-for-demo",
      comment: "daemon code never reaches a simulator; only the demo and `podsync simulate` start them",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/simulator/", "^src/cli/demo", "^src/cli/simulate\\.ts$"] },
      to: { path: "^src/simulator/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".js"]
    }
  }
}
