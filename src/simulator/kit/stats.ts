/**
 * What every simulator's store keeps the same way: the counters its stats start with and the
 * listener type its events go out through (webhooks subscribe to them).
 */

/** Counters every simulator's `GET /__sim/stats` carries. */
export interface RequestStats {
  /** API requests the simulator counted as served (each simulator says which). */
  requests: number
  /** Injected faults, per kind. */
  faultsInjected: Record<string, number>
}

/** Counters of simulators that name each request's operation. */
export interface OperationStats extends RequestStats {
  requestsByOperation: Record<string, number>
}

/** Called with each event a store raises and the record as it is at that moment. */
export type StoreListener<E extends string, T> = (event: E, record: T) => void

/** Adds one to `record[key]`: the per-kind and per-operation counters in every simulator's stats. */
export const bump = (record: Record<string, number>, key: string | number): void => {
  record[String(key)] = (record[String(key)] ?? 0) + 1
}

/** A store's listeners: webhooks subscribe; the store emits each event once its change is made, in subscription order. */
export class StoreEvents<E extends string, T> {
  private readonly listeners: Array<StoreListener<E, T>> = []

  subscribe(listener: StoreListener<E, T>): void {
    this.listeners.push(listener)
  }
  emit(event: E, record: T): void {
    for (const listener of this.listeners) listener(event, record)
  }
}
