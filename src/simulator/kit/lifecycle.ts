import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

/** Starting and stopping a simulator's server, the same way for every simulator. */

/** Listens on `host:port` (0 picks a free port) and returns the server's root URL. */
export const listen = async (server: Server, port: number, host: string): Promise<string> => {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  return `http://${host}:${(server.address() as AddressInfo).port}`
}

/**
 * Stops the server: `stopFirst` (pending webhook timers and requests) runs before the server closes,
 * and open keep-alive connections are cut so close() does not wait on idle clients.
 */
export const closer = (server: Server, stopFirst: () => void) => (): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    stopFirst()
    server.close((error) => (error ? reject(error) : resolve()))
    server.closeAllConnections()
  })

/**
 * Listens (as `listen`) and answers the running simulator: its root `url`, what `details` hands out
 * for that url (credentials, endpoints), and a `close` that runs `stopFirst` before the server closes.
 */
export const serve = async <D extends object>(
  server: Server,
  at: { readonly port: number; readonly host: string },
  stopFirst: () => void,
  details: (url: string) => D
): Promise<{ readonly url: string; readonly close: () => Promise<void> } & D> => {
  const url = await listen(server, at.port, at.host)
  return { url, ...details(url), close: closer(server, stopFirst) }
}

/** Starts a simulator for `podsync simulate` and prints `<name> listening on <url>` (to console.log unless told). */
export const announce = async <R extends { readonly url: string }>(
  name: string,
  start: () => Promise<R>,
  log: ((line: string) => void) | undefined
): Promise<R> => {
  const running = await start()
  ;(log ?? console.log)(`${name} listening on ${running.url}`)
  return running
}

/** A simulator's options for `podsync simulate`: its own, plus where the listening line goes (default console.log). */
export type StandaloneOptions<O> = O & { readonly log?: (line: string) => void }

/** The `podsync simulate` entry of a simulator: starts it and prints `<name> listening on <url>`. */
export const standalone =
  <O, R extends { readonly url: string }>(name: string, start: (options?: O) => Promise<R>) =>
  (options?: StandaloneOptions<O>): Promise<R> => announce(name, () => start(options), options?.log)

/** What every running simulator offers: where it listens and how to stop it. */
export interface RunningSimulator {
  /** The server's root (the admin API is at `${url}/__sim/…`). */
  readonly url: string
  readonly close: () => Promise<void>
}

/** Where a simulator listens unless told: this machine only, on a free port. */
export const listenDefaults = { host: "127.0.0.1", port: 0 } as const
