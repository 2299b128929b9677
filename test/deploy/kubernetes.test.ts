import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { describe, expect, it } from "vitest"
import {
  configPlaceholders,
  type Container,
  type Deployment,
  deployConfigText,
  deployPath,
  dockerfile,
  exampleMappingsDir,
  kubernetesDocuments,
  kubernetesObject,
  readDeploy,
  repoRoot
} from "./deployFiles.js"
import { runtimeMetadata } from "./imageLayout.js"

const kustomization = parse(readDeploy("kubernetes", "kustomization.yaml")) as { namespace: string; resources: ReadonlyArray<string> }
const deployment = kubernetesObject("deployment.yaml", "Deployment", "podsync") as Deployment
const pod = deployment.spec.template.spec
if (pod.containers.length !== 1) throw new Error("deployment.yaml: expected one container")
const container = pod.containers[0] as Container
const secret = kubernetesObject("secret.example.yaml", "Secret", "podsync-secrets")
const envVar = (name: string) => container.env?.find((e) => e.name === name)
const mountAt = (mountPath: string) => container.volumeMounts?.find((m) => m.mountPath === mountPath)
const volume = (name: string) => pod.volumes.find((v) => v.name === name)

describe("deploy/kubernetes", () => {
  it("lists every manifest in kustomization.yaml, each parsing as Kubernetes objects, the Secret apart", () => {
    const files = fs.readdirSync(deployPath("kubernetes")).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== "secret.example.yaml").sort())
    for (const file of files) {
      for (const object of kubernetesDocuments(file)) {
        expect(object.apiVersion, file).toMatch(/^(v1|apps\/v1|policy\/v1|networking\.k8s\.io\/v1)$/)
        expect(object.metadata.name, file).toMatch(/^[a-z0-9-]+$/)
      }
    }
    expect(kustomization.namespace).toBe("podsync")
  })

  it("runs 2 replicas that roll one at a time without losing capacity", () => {
    expect(deployment.spec.replicas).toBe(2)
    expect(deployment.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } })
    const pdb = kubernetesObject("pdb.yaml", "PodDisruptionBudget") as { spec?: { minAvailable?: number; selector?: unknown } }
    expect(pdb.spec?.minAvailable).toBe(1)
    expect(pdb.spec?.selector).toEqual(deployment.spec.selector)
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels)
  })

  it("gives both replicas one PostgreSQL from the Secret (the embedded database is for one process)", () => {
    expect(container.envFrom).toEqual([{ secretRef: { name: "podsync-secrets" } }])
    expect(Object.keys(secret.stringData ?? {})).toContain("DATABASE_URL")
  })

  it("probes liveness on /healthz and readiness on /readyz, with a startup probe for migrations", () => {
    expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" })
    expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" })
    expect(container.startupProbe?.httpGet).toEqual({ path: "/healthz", port: "http" })
    const startupBudget = (container.startupProbe?.periodSeconds ?? 10) * (container.startupProbe?.failureThreshold ?? 3)
    expect(startupBudget).toBeGreaterThanOrEqual(60)
    expect(container.ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }])
    expect(envVar("PODSYNC_PORT")?.value).toBe("8080")
    expect(envVar("PODSYNC_HOST")?.value).toBe("0.0.0.0")
  })

  it("requests resources and caps memory", () => {
    expect(container.resources?.requests).toEqual({ cpu: "100m", memory: "256Mi" })
    expect(container.resources?.limits?.["memory"]).toBe("512Mi")
  })

  it("runs as the image's non-root user with a read-only root and no privileges", () => {
    const [uid, gid] = (runtimeMetadata(dockerfile(), "runtime").user ?? "").split(":").map(Number)
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: gid,
      fsGroup: gid,
      seccompProfile: { type: "RuntimeDefault" }
    })
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true })
    expect(container.securityContext?.capabilities?.drop).toEqual(["ALL"])
    expect(pod.automountServiceAccountToken).toBe(false)
    expect(mountAt("/tmp")?.name).toBe("tmp")
  })

  it("takes every secret the config requires from podsync-secrets, whose example has each key and no value filled in", () => {
    const { required } = configPlaceholders()
    for (const name of required) expect(Object.keys(secret.stringData ?? {}), name).toContain(name)
    expect(Object.entries(secret.stringData ?? {}).filter(([, value]) => value !== "")).toEqual([])
    // What the deployment sets itself is not a secret: the Secret has none of it.
    for (const e of container.env ?? []) expect(Object.keys(secret.stringData ?? {}), e.name).not.toContain(e.name)
    expect(readDeploy(".gitignore").split("\n")).toContain("kubernetes/secret.yaml")
  })

  it("mounts the ConfigMaps at /etc/podsync as the config expects, without subPath", () => {
    expect(envVar("PODSYNC_CONFIG")?.value).toBe("/etc/podsync/podsync.yaml")
    expect(mountAt("/etc/podsync")).toEqual({ name: "config", mountPath: "/etc/podsync", readOnly: true })
    const sources = volume("config")?.projected?.sources.map((s) => s.configMap) ?? []
    const stores = ["acme-shopify", "acme-woo", "acme-etsy", "acme-feed"]
    expect(sources).toEqual([
      { name: "podsync-config", items: [{ key: "podsync.yaml", path: "podsync.yaml" }] },
      { name: "podsync-mappings", items: stores.map((store) => ({ key: `${store}.csv`, path: `mappings/${store}.csv` })) }
    ])
    expect(container.volumeMounts?.every((m) => m.subPath === undefined)).toBe(true)
    // Every store's mappings file, where the image's PODSYNC_MAPPINGS_DIR puts it, is one of the projected items.
    const config = parse(deployConfigText()) as { stores: ReadonlyArray<{ mappings: string }> }
    const mappingsDir = runtimeMetadata(dockerfile(), "runtime").env["PODSYNC_MAPPINGS_DIR"] ?? ""
    const projected = sources.flatMap((s) => s?.items ?? []).map((i) => path.posix.join("/etc/podsync", i.path))
    for (const store of config.stores) {
      expect(projected).toContain(store.mappings.replace("${PODSYNC_MAPPINGS_DIR:-./config/mappings}", mappingsDir))
    }
  })

  it("is generated from config/podsync.example.yaml and its mapping files: the ConfigMaps never drift from them", () => {
    const generated = execFileSync(process.execPath, [
      "--input-type=module",
      "-e",
      `import { configMapText } from "./scripts/kubernetes-configmap.js"
       import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
       process.stdout.write(configMapText(fs.readFileSync("config/podsync.example.yaml", "utf8"), "config/mappings", "config/podsync.example.yaml"))`
    ], { cwd: repoRoot, encoding: "utf8" })
    // `node scripts/kubernetes-configmap.js --example` writes it again.
    expect(readDeploy("kubernetes", "configmap.yaml")).toBe(generated)
    const config = kubernetesObject("configmap.yaml", "ConfigMap", "podsync-config")
    const mappings = kubernetesObject("configmap.yaml", "ConfigMap", "podsync-mappings")
    expect(config.data?.["podsync.yaml"]).toBe(deployConfigText())
    for (const file of fs.readdirSync(exampleMappingsDir).filter((f) => f.startsWith("acme-"))) {
      expect(mappings.data?.[file], file).toBe(fs.readFileSync(path.join(exampleMappingsDir, file), "utf8"))
    }
  })

  it("keeps no shared volume: reports are served from the database, the reports folder and data are each pod's own", () => {
    expect(mountAt("/var/lib/podsync/reports")?.name).toBe("reports")
    expect(volume("reports")?.emptyDir).toBeDefined()
    expect(volume("reports")?.persistentVolumeClaim).toBeUndefined()
    expect(pod.volumes.filter((v) => v.persistentVolumeClaim !== undefined)).toEqual([])
    expect(fs.readdirSync(deployPath("kubernetes")).join(" ")).not.toMatch(/pvc|ReadWriteMany/)
    expect(mountAt("/var/lib/podsync/data")?.name).toBe("data")
    expect(volume("data")?.emptyDir).toEqual({})
  })

  it("drains before stopping: preStop pause, then SIGTERM within the grace period", () => {
    const pause = container.lifecycle?.preStop?.exec?.command
    expect(pause?.[0]).toBe("sleep")
    expect(pod.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(Number(pause?.[1]) + 30)
    expect(container.args).toEqual(["start"])
  })

  it("exposes the webhooks through a Service on the pods' http port, published over HTTPS for /webhooks/ only", () => {
    const service = kubernetesObject("service.yaml", "Service", "podsync") as {
      spec?: { selector?: unknown; ports?: ReadonlyArray<{ targetPort: string }> }
    }
    expect(service.spec?.selector).toEqual(deployment.spec.selector.matchLabels)
    expect(service.spec?.ports?.map((p) => p.targetPort)).toEqual(["http"])
    const ingress = kubernetesObject("ingress.yaml", "Ingress", "podsync") as {
      spec?: {
        tls?: ReadonlyArray<{ hosts: ReadonlyArray<string> }>
        rules?: ReadonlyArray<{ host: string; http: { paths: ReadonlyArray<{ path: string; backend: unknown }> } }>
      }
    }
    const rule = ingress.spec?.rules?.[0]
    expect(rule?.http.paths).toEqual([{
      path: "/webhooks/",
      pathType: "Prefix",
      backend: { service: { name: "podsync", port: { name: "http" } } }
    }])
    expect(ingress.spec?.tls?.[0]?.hosts).toEqual([rule?.host])
    expect(Object.keys(secret.stringData ?? {})).toContain("POD_WEBHOOK_URL")
  })
})
