import type { PGlite } from "@electric-sql/pglite"
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Kysely,
  type TransactionSettings
} from "kysely"

/**
 * Kysely over PGlite. PGlite has exactly one connection, so the driver hands
 * it out to one holder at a time: a transaction keeps it from BEGIN to
 * COMMIT/ROLLBACK and every other query waits its turn. That serialization is
 * what keeps one fiber's statements out of another fiber's transaction.
 */
export class PgliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PgliteDriver(this.pglite)
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
}

class PgliteDriver implements Driver {
  private readonly connection: PgliteConnection
  private holder: Promise<void> = Promise.resolve()
  private releaseCurrent: (() => void) | undefined

  constructor(pglite: PGlite) {
    this.connection = new PgliteConnection(pglite)
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.holder
    let release!: () => void
    this.holder = new Promise<void>((resolve) => (release = resolve))
    await previous
    this.releaseCurrent = release
    return this.connection
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : ""
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"))
  }

  async releaseConnection(): Promise<void> {
    const release = this.releaseCurrent
    this.releaseCurrent = undefined
    release?.()
  }

  async destroy(): Promise<void> {
    await this.holder
  }
}

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiled.sql, [...compiled.parameters])
    const changes = ["INSERT", "UPDATE", "DELETE", "MERGE"].includes(result.command ?? "")
    return changes
      ? { rows: result.rows, numAffectedRows: BigInt(result.rowCount ?? result.affectedRows ?? 0) }
      : { rows: result.rows }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported on the embedded database")
  }
}
