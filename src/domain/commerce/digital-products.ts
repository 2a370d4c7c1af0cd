import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { Checks, deleteOwned, withTransaction } from '../kernel/checks.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { DigitalProductsTable } from '../kernel/tables.ts';

export const PRODUCT_STATUSES = ['draft', 'published', 'archived'] as const;

/** A downloadable product; `fileId` points into the school's file store. */
export interface DigitalProduct {
  id: string;
  schoolId: string;
  title: string;
  description: string;
  priceAmount: number;
  currency: string;
  fileId: string | null;
  status: (typeof PRODUCT_STATUSES)[number];
  createdAt: string;
  updatedAt: string;
}

export interface DigitalProductInput {
  title: string;
  description?: string;
  priceAmount: number;
  currency?: string;
  fileId?: string | null;
  status?: DigitalProduct['status'];
}

function toProduct(r: DigitalProductsTable): DigitalProduct {
  return {
    id: r.id,
    schoolId: r.school_id,
    title: r.title,
    description: r.description,
    priceAmount: r.price_amount,
    currency: r.currency,
    fileId: r.file_id,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function checkFile(db: Db | Tx, schoolId: string, fileId: string): Promise<void> {
  const f = await db
    .selectFrom('stored_files')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', '=', fileId)
    .executeTakeFirst();
  if (!f) throw problems.validation([{ field: 'fileId', message: 'no such file at this school' }]);
}

function fields(c: Checks, input: Partial<DigitalProductInput>): Partial<DigitalProductsTable> {
  const set: Partial<DigitalProductsTable> = {};
  if (input.title !== undefined) set.title = c.text('title', input.title);
  if (input.description !== undefined)
    set.description = c.optionalText('description', input.description) ?? '';
  if (input.priceAmount !== undefined) set.price_amount = c.amount('priceAmount', input.priceAmount);
  if (input.currency !== undefined) set.currency = c.currency('currency', input.currency);
  if (input.status !== undefined) set.status = c.oneOf('status', input.status, PRODUCT_STATUSES);
  if (input.fileId !== undefined) set.file_id = input.fileId;
  return set;
}

/** Creates a digital product; the currency defaults to the school's. A published one needs a file. */
export async function createDigitalProduct(
  db: Db | Tx,
  schoolId: string,
  input: DigitalProductInput,
): Promise<DigitalProduct> {
  const c = new Checks();
  const set = fields(c, input);
  if (input.title === undefined) c.fail('title', 'is required');
  if (input.priceAmount === undefined) c.fail('priceAmount', 'is required');
  if (set.status === 'published' && !set.file_id) c.fail('fileId', 'is required to publish');
  c.done();
  return withTransaction(db, async (tx) => {
    const school = await tx
      .selectFrom('schools')
      .select('currency')
      .where('id', '=', schoolId)
      .executeTakeFirst();
    if (!school) throw problems.notFound('No such school.');
    if (set.file_id) await checkFile(tx, schoolId, set.file_id);
    const now = isoNow();
    const row: DigitalProductsTable = {
      id: newId('dpr'),
      school_id: schoolId,
      title: set.title ?? '',
      description: set.description ?? '',
      price_amount: set.price_amount ?? 0,
      currency: set.currency ?? school.currency,
      file_id: set.file_id ?? null,
      status: set.status ?? 'draft',
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('digital_products').values(row).execute();
    return toProduct(row);
  });
}

/** A digital product of the school; 404 otherwise. */
export async function getDigitalProduct(db: Db | Tx, schoolId: string, id: string): Promise<DigitalProduct> {
  const row = await db
    .selectFrom('digital_products')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such digital product.');
  return toProduct(row);
}

/** Digital products of the school, oldest first, by status or title search. */
export async function listDigitalProducts(
  db: Db | Tx,
  schoolId: string,
  filter: { status?: DigitalProduct['status']; search?: string } = {},
  page: PageParams = {},
): Promise<Page<DigitalProduct>> {
  let q = db
    .selectFrom('digital_products')
    .selectAll('digital_products')
    .where('digital_products.school_id', '=', schoolId);
  if (filter.status) q = q.where('digital_products.status', '=', filter.status);
  if (filter.search)
    q = q.where(sql`lower(digital_products.title)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  return mapPage(await paginate(q, page, { table: 'digital_products' }), toProduct);
}

/** Changes a digital product. */
export async function updateDigitalProduct(
  db: Db | Tx,
  schoolId: string,
  id: string,
  patch: Partial<DigitalProductInput>,
): Promise<DigitalProduct> {
  const c = new Checks();
  const set = fields(c, patch);
  c.done();
  return withTransaction(db, async (tx) => {
    const current = await getDigitalProduct(tx, schoolId, id);
    if (set.file_id) await checkFile(tx, schoolId, set.file_id);
    const status = set.status ?? current.status;
    const fileId = set.file_id !== undefined ? set.file_id : current.fileId;
    if (status === 'published' && !fileId)
      throw problems.validation([{ field: 'fileId', message: 'is required to publish' }]);
    await tx
      .updateTable('digital_products')
      .set({ ...set, updated_at: isoNow() })
      .where('id', '=', id)
      .execute();
    return getDigitalProduct(tx, schoolId, id);
  });
}

/** Deletes a digital product; orders keep their line items. */
export async function deleteDigitalProduct(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'digital_products', schoolId, id, 'digital product');
}
