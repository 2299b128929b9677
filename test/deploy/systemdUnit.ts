/**
 * A systemd unit file as sections of (key, value) pairs, in order; a key may
 * repeat (Environment=, StateDirectory=). Comments (# and ;) and blank lines
 * are dropped, backslash continuations joined.
 */
export type Unit = ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>

export const parseUnit = (text: string): Unit => {
  const sections = new Map<string, Array<readonly [string, string]>>()
  let current: Array<readonly [string, string]> | undefined
  const lines = text.replace(/\\\n/g, " ").split("\n")
  lines.forEach((raw, index) => {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return
    const header = /^\[([^\]]+)\]$/.exec(line)
    if (header) {
      current = []
      sections.set(header[1] ?? "", current)
      return
    }
    const assignment = /^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$/.exec(line)
    if (!assignment || current === undefined) throw new Error(`line ${index + 1}: not a key=value inside a section: ${line}`)
    current.push([assignment[1] ?? "", assignment[2] ?? ""])
  })
  return sections
}

/** Every value of a key in a section (a repeated key accumulates). */
export const values = (unit: Unit, section: string, key: string): ReadonlyArray<string> =>
  (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v)

/** The last value of a key (systemd's rule for single-valued keys), or undefined. */
export const value = (unit: Unit, section: string, key: string): string | undefined => values(unit, section, key).at(-1)

/** Environment= assignments, NAME=value, merged in order. */
export const environment = (unit: Unit): Record<string, string> =>
  Object.fromEntries(
    values(unit, "Service", "Environment").flatMap((assignments) =>
      assignments.split(/\s+/).map((pair) => {
        const at = pair.indexOf("=")
        return [pair.slice(0, at), pair.slice(at + 1)] as const
      })
    )
  )

/**
 * The directives this unit may use, per section, from systemd.unit(5),
 * systemd.service(5), systemd.exec(5), systemd.kill(5) and systemd.resource-control(5).
 * A key outside the list is most likely a typo that systemd would ignore with a warning.
 */
export const knownKeys: Readonly<Record<string, ReadonlySet<string>>> = {
  Unit: new Set([
    "Description",
    "Documentation",
    "Wants",
    "Requires",
    "After",
    "Before",
    "BindsTo",
    "PartOf",
    "Conflicts",
    "StartLimitIntervalSec",
    "StartLimitBurst",
    "ConditionPathExists",
    "AssertPathExists"
  ]),
  Service: new Set([
    "Type",
    "User",
    "Group",
    "DynamicUser",
    "SupplementaryGroups",
    "WorkingDirectory",
    "Environment",
    "EnvironmentFile",
    "ExecStartPre",
    "ExecStart",
    "ExecStartPost",
    "ExecReload",
    "ExecStop",
    "ExecStopPost",
    "Restart",
    "RestartSec",
    "RestartPreventExitStatus",
    "SuccessExitStatus",
    "TimeoutStartSec",
    "TimeoutStopSec",
    "KillSignal",
    "KillMode",
    "FinalKillSignal",
    "SendSIGKILL",
    "StateDirectory",
    "StateDirectoryMode",
    "ConfigurationDirectory",
    "ConfigurationDirectoryMode",
    "LogsDirectory",
    "CacheDirectory",
    "RuntimeDirectory",
    "UMask",
    "LimitNOFILE",
    "MemoryMax",
    "MemoryHigh",
    "CPUQuota",
    "TasksMax",
    "NoNewPrivileges",
    "CapabilityBoundingSet",
    "AmbientCapabilities",
    "ProtectSystem",
    "ProtectHome",
    "PrivateTmp",
    "PrivateDevices",
    "PrivateUsers",
    "PrivateNetwork",
    "PrivateMounts",
    "ProtectKernelTunables",
    "ProtectKernelModules",
    "ProtectKernelLogs",
    "ProtectControlGroups",
    "ProtectClock",
    "ProtectHostname",
    "ProtectProc",
    "ProcSubset",
    "RestrictAddressFamilies",
    "RestrictNamespaces",
    "RestrictRealtime",
    "RestrictSUIDSGID",
    "LockPersonality",
    "MemoryDenyWriteExecute",
    "RemoveIPC",
    "SystemCallArchitectures",
    "SystemCallFilter",
    "SystemCallErrorNumber",
    "ReadWritePaths",
    "ReadOnlyPaths",
    "InaccessiblePaths",
    "StandardOutput",
    "StandardError",
    "SyslogIdentifier"
  ]),
  Install: new Set(["WantedBy", "RequiredBy", "Alias", "Also"])
}
