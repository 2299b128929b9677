import * as net from "node:net"

/**
 * A TCP proxy in front of a server, to take the server away as a restart or a failover does
 * from a client's point of view: `cut()` drops every open connection and refuses new ones until
 * `restore()`. Only for tests.
 */
export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client).add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve))
  await listen(0)
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the proxy has no port")
  const port = address.port
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      sockets.clear()
      server.close(() => resolve())
    })
  return { port, cut: stop, restore: () => listen(port), close: stop }
}
