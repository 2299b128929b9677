import { describe, expect, it } from "vitest"
import { configPlaceholders, deployConfigText, envFile, readDeploy } from "./deployFiles.js"
import { environment, knownKeys, parseUnit, value, values } from "./systemdUnit.js"

const unit = parseUnit(readDeploy("systemd", "podsync.service"))

/** The unit sets each directive to its value (`undefined`: does not set it), section by section. */
const expectDirectives = (sections: Record<string, Record<string, string | undefined>>) => {
  for (const [section, directives] of Object.entries(sections)) {
    for (const [key, expected] of Object.entries(directives)) expect(value(unit, section, key), `${section}.${key}`).toBe(expected)
  }
}

describe("the systemd unit parser", () => {
  it("keeps repeated keys in order, joins continuations and drops comments", () => {
    const parsed = parseUnit("# c\n[Service]\nEnvironment=A=1\n; c\nEnvironment=B=2 \\\n  C=3\n[Install]\nWantedBy=x\n")
    expect(values(parsed, "Service", "Environment")).toEqual(["A=1", "B=2    C=3"])
    expect(environment(parsed)).toEqual({ A: "1", B: "2", C: "3" })
    expect(value(parsed, "Install", "WantedBy")).toBe("x")
    expect(() => parseUnit("Orphan=1\n")).toThrow(/not a key=value inside a section/)
  })
})

describe("deploy/systemd/podsync.service", () => {
  it("has the three sections and only directives systemd knows", () => {
    expect([...unit.keys()]).toEqual(["Unit", "Service", "Install"])
    for (const [section, entries] of unit) {
      for (const [key] of entries) expect(knownKeys[section]?.has(key), `${section}.${key}`).toBe(true)
    }
  })

  it("restarts on failure, with a delay and a start limit", () => {
    expectDirectives({
      Service: { Restart: "on-failure", RestartSec: "5s" },
      Unit: { StartLimitIntervalSec: "300", StartLimitBurst: "5" }
    })
  })

  it("runs `podsync start` as the podsync user, after checking the config", () => {
    expectDirectives({
      Service: {
        Type: "exec",
        User: "podsync",
        Group: "podsync",
        ExecStartPre: "/usr/bin/node /opt/podsync/bin/podsync.js check --unverified-ok",
        ExecStart: "/usr/bin/node /opt/podsync/bin/podsync.js start",
        WorkingDirectory: "/opt/podsync"
      }
    })
  })

  it("reads secrets from an environment file and points PODSYNC_CONFIG at /etc/podsync", () => {
    expect(value(unit, "Service", "EnvironmentFile")).toBe("/etc/podsync/podsync.env")
    expect(environment(unit)).toMatchObject({
      PODSYNC_CONFIG: "/etc/podsync/podsync.yaml",
      PODSYNC_HOST: "127.0.0.1",
      PODSYNC_PORT: "8080",
      PODSYNC_MAPPINGS_DIR: "/etc/podsync/mappings",
      NODE_ENV: "production"
    })
    // The example environment file names every secret the config requires, and fills in none for the seller.
    const example = envFile("systemd", "podsync.env.example")
    for (const name of configPlaceholders().required) expect(Object.keys(example), name).toContain(name)
    expect(Object.entries(example).filter(([name, value]) => value !== "" && name !== "PODSYNC_CONSOLE_PROXY_FROM")).toEqual([])
    expect(readDeploy(".gitignore").split("\n")).toContain("systemd/podsync.env")
  })

  it("stops with SIGTERM and a timeout, and creates the state folders the config uses", () => {
    expectDirectives({ Service: { KillSignal: "SIGTERM", KillMode: "mixed", TimeoutStopSec: "30s" } })
    expect(value(unit, "Service", "StateDirectory")?.split(/\s+/)).toEqual(["podsync", "podsync/data", "podsync/reports"])
    // config/podsync.example.yaml's dataDir and reports.dir, as the unit's environment sets them.
    expect(environment(unit)).toMatchObject({
      PODSYNC_DATA_DIR: "/var/lib/podsync/data",
      PODSYNC_REPORTS_DIR: "/var/lib/podsync/reports"
    })
    const config = deployConfigText()
    expect(config).toContain("dataDir: ${PODSYNC_DATA_DIR:-./data}")
    expect(config).toContain("dir: ${PODSYNC_REPORTS_DIR:-./reports}")
  })

  it("is hardened, without MemoryDenyWriteExecute (V8's JIT needs it off)", () => {
    for (const key of ["NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices", "RestrictSUIDSGID", "LockPersonality"]) {
      expect(value(unit, "Service", key), key).toBe("yes")
    }
    expectDirectives({
      Service: {
        ProtectSystem: "strict",
        CapabilityBoundingSet: "",
        SystemCallFilter: "@system-service",
        MemoryDenyWriteExecute: undefined
      },
      Install: { WantedBy: "multi-user.target" }
    })
  })
})
