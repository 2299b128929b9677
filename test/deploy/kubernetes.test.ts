import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { describe, expect, it } from "vitest"
import {
  configPlaceholders,
  type Container,
  type Deployment,
  deployPath,
  dockerfile,
  kubernetesDocuments,
  kubernetesObject,
  readDeploy
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
    expect(envVar("DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "podsync-secrets", key: "DATABASE_URL" })
    expect(secret.stringData?.["DATABASE_URL"]).toMatch(/^postgres:\/\//)
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

  it("takes every secret the config requires from podsync-secrets, and the Secret example has each key", () => {
    const { required, optional } = configPlaceholders()
    for (const name of required) {
      const ref = envVar(name)?.valueFrom?.secretKeyRef
      expect(ref, name).toEqual({ name: "podsync-secrets", key: name })
      expect(Object.keys(secret.stringData ?? {}), name).toContain(name)
    }
    // Optional ones may be absent from the Secret, and then must not block the pod.
    const optionalRefs = (container.env ?? []).filter((e) => e.valueFrom?.secretKeyRef?.optional === true).map((e) => e.name)
    for (const name of optionalRefs) expect(optional, name).toContain(name)
    expect(readDeploy(".gitignore").split("\n")).toContain("kubernetes/secret.yaml")
  })

  it("mounts the ConfigMaps at /etc/podsync as the config expects, without subPath", () => {
    expect(envVar("PODSYNC_CONFIG")?.value).toBe("/etc/podsync/podsync.yaml")
    expect(mountAt("/etc/podsync")).toEqual({ name: "config", mountPath: "/etc/podsync", readOnly: true })
    const sources = volume("config")?.projected?.sources.map((s) => s.configMap) ?? []
    expect(sources).toEqual([
      { name: "podsync-config", items: [{ key: "podsync.yaml", path: "podsync.yaml" }] },
      { name: "podsync-mappings", items: [{ key: "acme-shopify.csv", path: "mappings/acme-shopify.csv" }] }
    ])
    expect(container.volumeMounts?.every((m) => m.subPath === undefined)).toBe(true)
    // Every store's mappings file is one of the projected items.
    const config = parse(readDeploy("config", "podsync.yaml")) as { stores: ReadonlyArray<{ mappings: string }> }
    const projected = sources.flatMap((s) => s?.items ?? []).map((i) => path.posix.join("/etc/podsync", i.path))
    for (const store of config.stores) expect(projected).toContain(store.mappings)
  })

  it("holds the same config and mappings text as deploy/config/", () => {
    const config = kubernetesObject("configmap.yaml", "ConfigMap", "podsync-config")
    const mappings = kubernetesObject("configmap.yaml", "ConfigMap", "podsync-mappings")
    expect(config.data?.["podsync.yaml"]).toBe(readDeploy("config", "podsync.yaml"))
    expect(mappings.data?.["acme-shopify.csv"]).toBe(readDeploy("config", "mappings", "acme-shopify.csv"))
  })

  it("keeps reports on a volume both replicas share, and data in an emptyDir (the database is PostgreSQL)", () => {
    expect(mountAt("/var/lib/podsync/reports")?.name).toBe("reports")
    expect(volume("reports")?.persistentVolumeClaim).toEqual({ claimName: "podsync-reports" })
    const pvc = kubernetesObject("pvc-reports.yaml", "PersistentVolumeClaim", "podsync-reports") as {
      spec?: { accessModes?: ReadonlyArray<string> }
    }
    expect(pvc.spec?.accessModes).toEqual(["ReadWriteMany"])
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
    expect(new URL(secret.stringData?.["POD_WEBHOOK_URL"] ?? "").host).toBe(rule?.host)
    expect(new URL(secret.stringData?.["POD_WEBHOOK_URL"] ?? "").protocol).toBe("https:")
  })
})
