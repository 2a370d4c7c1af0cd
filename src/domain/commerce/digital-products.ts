import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { columnsOf } from '../kernel/case.ts';
import { deleteOwned, parseValid, withTransaction } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Amount, Currency, Id, Text } from '../kernel/fields.ts';
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

/** A product's fields as a client writes them: each rule once (the admin API derives its bodies). */
const DigitalProductFields = z.object({
  title: Text(200),
  description: declare(z.string().max(20_000), { kind: 'long_text' }),
  priceAmount: Amount,
  /** Defaults to the school's currency. */
  currency: Currency,
  fileId: Id.nullable(),
  status: z.enum(PRODUCT_STATUSES),
});

/** A new product: title and price; a draft in the school's currency unless said otherwise. */
export const DigitalProductCreate = DigitalProductFields.partial({
  description: true,
  currency: true,
  fileId: true,
  status: true,
});
export type DigitalProductInput = z.input<typeof DigitalProductCreate>;

/** A change to a product: any of its fields. */
export const DigitalProductPatch = DigitalProductFields.partial();

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

/** Creates a digital product; the currency defaults to the school's. A published one needs a file. */
export async function createDigitalProduct(
  db: Db | Tx,
  schoolId: string,
  input: DigitalProductInput,
): Promise<DigitalProduct> {
  const v = parseValid(DigitalProductCreate, input);
  if (v.status === 'published' && !v.fileId)
    throw problems.validation([{ field: 'fileId', message: 'is required to publish' }]);
  return withTransaction(db, async (tx) => {
    const school = await tx
      .selectFrom('schools')
      .select('currency')
      .where('id', '=', schoolId)
      .executeTakeFirst();
    if (!school) throw problems.notFound('No such school.');
    if (v.fileId) await checkFile(tx, schoolId, v.fileId);
    const now = isoNow();
    const row: DigitalProductsTable = {
      id: newId('dpr'),
      school_id: schoolId,
      title: v.title,
      description: v.description ?? '',
      price_amount: v.priceAmount,
      currency: v.currency ?? school.currency,
      file_id: v.fileId ?? null,
      status: v.status ?? 'draft',
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
  input: z.input<typeof DigitalProductPatch>,
): Promise<DigitalProduct> {
  const patch = parseValid(DigitalProductPatch, input);
  return withTransaction(db, async (tx) => {
    const current = await getDigitalProduct(tx, schoolId, id);
    if (patch.fileId) await checkFile(tx, schoolId, patch.fileId);
    const status = patch.status ?? current.status;
    const fileId = patch.fileId !== undefined ? patch.fileId : current.fileId;
    if (status === 'published' && !fileId)
      throw problems.validation([{ field: 'fileId', message: 'is required to publish' }]);
    await tx
      .updateTable('digital_products')
      .set({ ...columnsOf(patch), updated_at: isoNow() })
      .where('id', '=', id)
      .execute();
    return getDigitalProduct(tx, schoolId, id);
  });
}

/** Deletes a digital product; orders keep their line items. */
export async function deleteDigitalProduct(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'digital_products', schoolId, id, 'digital product');
}
