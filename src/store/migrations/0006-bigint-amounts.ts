import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Every column that holds money, in minor units. The API accepts amounts up to MAX_AMOUNT
 * (src/domain/checks.ts), beyond PostgreSQL's 32-bit `integer`.
 */
export const MONEY_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  courses: ['price_amount'],
  coupons: ['amount_off'],
  orders: ['subtotal_amount', 'discount_amount', 'total_amount', 'refunded_amount'],
  order_items: ['unit_amount', 'total_amount'],
  membership_plans: ['price_amount'],
  digital_products: ['price_amount'],
};

/**
 * Money columns become 64-bit on PostgreSQL (`bigint`). SQLite's INTEGER already stores 64-bit
 * values, so there is nothing to change there (a table rebuild would only add risk). Reads stay
 * numbers: the pg pool parses int8 as a JS number (src/store/database.ts), exact because every
 * stored amount is at most MAX_AMOUNT, far below 2^53.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, columns] of Object.entries(MONEY_COLUMNS)) {
    let alter = db.schema.alterTable(table).alterColumn(columns[0], (c) => c.setDataType('bigint'));
    for (const column of columns.slice(1)) alter = alter.alterColumn(column, (c) => c.setDataType('bigint'));
    await alter.execute();
  }
}
