import * as fs from "node:fs"
import * as path from "node:path"
import { parseEnv } from "node:util"
import { parse, parseAllDocuments } from "yaml"
import { type Dockerfile, parseDockerfile } from "./dockerfile.js"

/** Reading the files under deploy/ for the tests. Paths are relative to the repository root. */

export const repoRoot = path.resolve(import.meta.dirname, "../..")
export const deployPath = (...parts: ReadonlyArray<string>) => path.join(repoRoot, "deploy", ...parts)
export const readDeploy = (...parts: ReadonlyArray<string>) => fs.readFileSync(deployPath(...parts), "utf8")

export const dockerfile = (): Dockerfile => parseDockerfile(readDeploy("Dockerfile"))

/** The compose file, as a plain object tree. */
export const compose = (): ComposeFile => parse(readDeploy("docker-compose.yml")) as ComposeFile

/** Every document of a Kubernetes YAML file. */
export const kubernetesDocuments = (file: string): ReadonlyArray<KubeObject> =>
  parseAllDocuments(readDeploy("kubernetes", file)).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`)
    return document.toJS() as KubeObject
  })

export const kubernetesObject = (file: string, kind: string, name?: string): KubeObject => {
  const found = kubernetesDocuments(file).find((o) => o.kind === kind && (name === undefined || o.metadata.name === name))
  if (found === undefined) throw new Error(`${file}: no ${kind}${name ? ` ${name}` : ""}`)
  return found
}

/** NAME=value lines (dotenv / systemd EnvironmentFile syntax). */
export const envFile = (...parts: ReadonlyArray<string>): Record<string, string> => {
  const parsed = parseEnv(readDeploy(...parts))
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => e[1] !== undefined))
}

/** The one configuration of every deployment: config/podsync.example.yaml (a seller deploys their copy of it). */
export const exampleConfigPath = path.join(repoRoot, "config", "podsync.example.yaml")
export const exampleMappingsDir = path.join(repoRoot, "config", "mappings")
export const deployConfigText = () => fs.readFileSync(exampleConfigPath, "utf8")

/**
 * A value for each key of the Kubernetes Secret example, as a seller would fill them in, each of its
 * own so that a leak into the output is seen. Addresses are on this machine, on a port nothing
 * listens on (a store or the POD service that does not answer does not keep podsync from starting).
 */
export const filledSecrets = (overrides: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const keys = Object.keys(kubernetesObject("secret.example.yaml", "Secret").stringData ?? {})
  const value = (name: string) => {
    if (name === "DATABASE_URL") return "postgres://podsync:secret-db-password@127.0.0.1:9/podsync"
    if (name === "POD_WEBHOOK_URL") return "https://podsync.acme-shirts.test/webhooks/pod"
    if (name === "PODSYNC_PUBLIC_URL") return "https://podsync.acme-shirts.test"
    if (name === "ACME_ETSY_SHOP_ID") return "48213795"
    if (name === "ALERTS_EMAIL_FROM") return "podsync <podsync@acme-shirts.test>"
    if (name === "ALERTS_EMAIL_TO") return "owner@acme-shirts.test, ops@acme-shirts.test"
    if (name === "ALERTS_SMTP_HOST") return "127.0.0.1"
    if (name.endsWith("_URL")) return `http://127.0.0.1:9/${name.toLowerCase()}`
    return `value-of-${name.toLowerCase()}`
  }
  return { ...Object.fromEntries(keys.map((name) => [name, value(name)])), ...overrides }
}

/** The ${NAME} placeholders of the deployment config, split by whether they have a default. */
export const configPlaceholders = (text = deployConfigText()) => {
  const required = new Set<string>()
  const optional = new Set<string>()
  for (const line of text.split("\n")) {
    if (line.trim().startsWith("#")) continue
    for (const match of line.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g)) {
      const name = match[1] ?? ""
      if (match[2] === undefined) required.add(name)
      else optional.add(name)
    }
  }
  return { required: [...required].sort(), optional: [...optional].sort() }
}

// The shapes the tests read; everything else stays unknown.
export interface ComposeService {
  readonly image?: string
  readonly build?: { readonly context: string; readonly dockerfile: string }
  readonly profiles?: ReadonlyArray<string>
  readonly depends_on?: Record<string, { readonly condition: string }>
  readonly init?: boolean
  readonly restart?: string
  readonly env_file?: ReadonlyArray<string>
  readonly environment?: Record<string, string>
  readonly volumes?: ReadonlyArray<
    string | {
      readonly type: string
      readonly source: string
      readonly target: string
      readonly read_only?: boolean
      readonly bind?: unknown
    }
  >
  readonly networks?: ReadonlyArray<string> | Record<string, { readonly ipv4_address?: string }>
  readonly ports?: ReadonlyArray<string>
  readonly healthcheck?: { readonly test: ReadonlyArray<string> }
  readonly read_only?: boolean
  readonly tmpfs?: ReadonlyArray<string>
  readonly cap_drop?: ReadonlyArray<string>
  readonly stop_grace_period?: string
  readonly entrypoint?: ReadonlyArray<string>
}
export interface ComposeFile {
  readonly services: Record<string, ComposeService>
  readonly volumes: Record<string, unknown>
  readonly networks?: Record<string, { readonly ipam?: { readonly config?: ReadonlyArray<{ readonly subnet: string }> } }>
}

export interface KubeObject {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> }
  readonly data?: Record<string, string>
  readonly stringData?: Record<string, string>
  readonly [key: string]: unknown
}

export interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number }
  readonly periodSeconds?: number
  readonly timeoutSeconds?: number
  readonly failureThreshold?: number
}
export interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean } }
}
export interface Container {
  readonly name: string
  readonly image: string
  readonly args?: ReadonlyArray<string>
  readonly ports?: ReadonlyArray<{ readonly name?: string; readonly containerPort: number }>
  readonly env?: ReadonlyArray<EnvVar>
  readonly envFrom?: ReadonlyArray<{ readonly secretRef?: { readonly name: string } }>
  readonly resources?: {
    readonly requests?: Record<string, string>
    readonly limits?: Record<string, string>
  }
  readonly startupProbe?: Probe
  readonly livenessProbe?: Probe
  readonly readinessProbe?: Probe
  readonly lifecycle?: { readonly preStop?: { readonly exec?: { readonly command: ReadonlyArray<string> } } }
  readonly securityContext?: Record<string, unknown> & { readonly capabilities?: { readonly drop?: ReadonlyArray<string> } }
  readonly volumeMounts?: ReadonlyArray<
    { readonly name: string; readonly mountPath: string; readonly readOnly?: boolean; readonly subPath?: string }
  >
}
export interface Volume {
  readonly name: string
  readonly emptyDir?: Record<string, unknown>
  readonly persistentVolumeClaim?: { readonly claimName: string }
  readonly projected?: {
    readonly sources: ReadonlyArray<{
      readonly configMap?: { readonly name: string; readonly items?: ReadonlyArray<{ readonly key: string; readonly path: string }> }
    }>
  }
}
export interface Deployment extends KubeObject {
  readonly spec: {
    readonly replicas: number
    readonly selector: { readonly matchLabels: Record<string, string> }
    readonly strategy?: { readonly type: string; readonly rollingUpdate?: { readonly maxUnavailable?: number; readonly maxSurge?: number } }
    readonly template: {
      readonly metadata: { readonly labels: Record<string, string> }
      readonly spec: {
        readonly terminationGracePeriodSeconds?: number
        readonly automountServiceAccountToken?: boolean
        readonly securityContext?: Record<string, unknown>
        readonly containers: ReadonlyArray<Container>
        readonly volumes: ReadonlyArray<Volume>
      }
    }
  }
}
