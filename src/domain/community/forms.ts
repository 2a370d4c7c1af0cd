import { sql } from 'kysely';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { FormSubmissionsTable, FormsTable } from '../kernel/tables.ts';
import { likePattern } from './posts.ts';

/** A form definition (read only for operators). */
export interface Form {
  id: string;
  schoolId: string;
  title: string;
  fields: Array<Record<string, unknown>>;
  submissionsCount: number;
  createdAt: string;
  updatedAt: string;
}

/** One submission of a form. */
export interface FormSubmission {
  id: string;
  formId: string;
  email: string | null;
  data: Record<string, unknown>;
  submittedAt: string;
}

function toForm(r: FormsTable & { submissions_count: number | string | null }): Form {
  return {
    id: r.id,
    schoolId: r.school_id,
    title: r.title,
    fields: JSON.parse(r.fields),
    submissionsCount: Number(r.submissions_count ?? 0),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toSubmission(r: FormSubmissionsTable): FormSubmission {
  return {
    id: r.id,
    formId: r.form_id,
    email: r.email,
    data: JSON.parse(r.data),
    submittedAt: r.submitted_at,
  };
}

function formQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('forms')
    .selectAll('forms')
    .select((eb) =>
      eb
        .selectFrom('form_submissions')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('form_submissions.form_id', '=', 'forms.id')
        .as('submissions_count'),
    )
    .where('forms.school_id', '=', schoolId);
}

/** Forms of the school, oldest first, by title search. */
export async function listForms(
  db: Db | Tx,
  schoolId: string,
  filter: { search?: string } = {},
  page: PageParams = {},
): Promise<Page<Form>> {
  let q = formQuery(db, schoolId);
  if (filter.search)
    q = q.where(sql`lower(forms.title)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  return mapPage(await paginate(q, page, { table: 'forms' }), toForm);
}

/** A form of the school; 404 otherwise. */
export async function getForm(db: Db | Tx, schoolId: string, id: string): Promise<Form> {
  const row = await formQuery(db, schoolId).where('forms.id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such form.');
  return toForm(row);
}

/** Submissions of one form, oldest first, by email search or date range. */
export async function listFormSubmissions(
  db: Db | Tx,
  schoolId: string,
  formId: string,
  filter: { email?: string; from?: string; to?: string } = {},
  page: PageParams = {},
): Promise<Page<FormSubmission>> {
  await getForm(db, schoolId, formId);
  let q = db
    .selectFrom('form_submissions')
    .selectAll('form_submissions')
    .where('form_submissions.school_id', '=', schoolId)
    .where('form_submissions.form_id', '=', formId);
  if (filter.email)
    q = q.where(sql`lower(form_submissions.email)`, 'like', sql`${likePattern(filter.email)} escape '\\'`);
  if (filter.from) q = q.where('form_submissions.submitted_at', '>=', filter.from);
  if (filter.to) q = q.where('form_submissions.submitted_at', '<', filter.to);
  return mapPage(await paginate(q, page, { table: 'form_submissions' }), toSubmission);
}

/** One submission of a form of the school; 404 otherwise. */
export async function getFormSubmission(
  db: Db | Tx,
  schoolId: string,
  formId: string,
  id: string,
): Promise<FormSubmission> {
  const row = await db
    .selectFrom('form_submissions')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('form_id', '=', formId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such submission.');
  return toSubmission(row);
}
