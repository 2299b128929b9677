import * as fs from "node:fs"
import * as net from "node:net"
import { describe, expect, it } from "vitest"
import { freePort } from "./support/cli.js"

// Daemons' ports are chosen outside the range the kernel hands out to port-0 listens and outgoing
// connections, so that no simulator or connection of another test takes one before its daemon listens.
describe("freePort", () => {
  it("answers distinct ports a server can listen on, none in the kernel's ephemeral range", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()))
    expect(new Set(ports).size).toBe(20)
    if (process.platform === "linux") {
      const [low, high] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number)
      expect(ports.filter((port) => port >= low! && port <= high!)).toEqual([])
    }
    const server = net.createServer()
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(ports[0], "127.0.0.1", resolve)
    })
    await new Promise((resolve) => server.close(resolve))
  })
})
