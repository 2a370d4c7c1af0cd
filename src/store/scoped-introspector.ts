import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Dialect,
  type Kysely,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

/**
 * Kysely's PostgreSQL introspector reads every schema of the server (with
 * `pg_get_serial_sequence` on each column), so a migration checking for its own tables fails with
 * "schema … does not exist" or "column … does not exist" while another database on the same
 * server is being migrated or dropped (parallel test runs, tenants). The migrator only asks which
 * tables exist: this answers that (and their columns) for the connection's own schema only.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return rows;
  }

  async getTables(_options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table: string;
      schema: string;
      kind: string;
      column: string | null;
      type: string | null;
      not_null: boolean | null;
      has_default: boolean | null;
    }>`
      select c.relname as table, n.nspname as schema, c.relkind as kind, a.attname as column,
        format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null, a.atthasdef as has_default
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const r of rows) {
      let table = tables.get(r.table);
      if (!table) {
        table = { name: r.table, schema: r.schema, isView: r.kind === 'v', columns: [] };
        tables.set(r.table, table);
      }
      if (r.column === null) continue;
      table.columns.push({
        name: r.column,
        dataType: r.type ?? '',
        isNullable: !r.not_null,
        hasDefaultValue: Boolean(r.has_default),
        isAutoIncrementing: false,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** A PostgreSQL dialect whose introspection stays inside the connection's current schema. */
export function withCurrentSchemaIntrospection(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => new CurrentSchemaIntrospector(db),
  };
}
