import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import type { FormSubmissionsTable, FormsTable } from '../kernel/community-tables.ts';
import { Email } from '../kernel/fields.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
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

/** One field of a form as a visitor fills it in. */
export interface FormField {
  name: string;
  label: string;
  /** `email`, `textarea` or `text` (any other stored type is answered as text). */
  type: 'text' | 'email' | 'textarea';
  required: boolean;
  maxLength: number;
}

const MAX_LENGTH = { text: 500, email: 254, textarea: 5000 } as const;

/** The fields of a form, read from what is stored: entries without a usable name are left out. */
export function formFields(form: Pick<Form, 'fields'>): FormField[] {
  const seen = new Set<string>();
  return form.fields.flatMap((f) => {
    const name = typeof f.name === 'string' ? f.name : '';
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name) || seen.has(name)) return [];
    seen.add(name);
    const type = f.type === 'email' || f.type === 'textarea' ? f.type : 'text';
    const label = typeof f.label === 'string' && f.label.trim() ? f.label : name;
    return [{ name, label, type, required: f.required === true, maxLength: MAX_LENGTH[type] }];
  });
}

/** What is wrong with a submission, by field name; empty when it may be stored. */
export function submissionProblems(
  fields: readonly FormField[],
  answers: Readonly<Record<string, string>>,
): Record<string, string> {
  const problemsOf: Record<string, string> = {};
  for (const field of fields) {
    const value = (answers[field.name] ?? '').trim();
    if (value.includes('\u0000')) problemsOf[field.name] = 'contains a character that is not allowed';
    else if (!value) {
      if (field.required) problemsOf[field.name] = 'is required';
    } else if (value.length > field.maxLength)
      problemsOf[field.name] = `must be at most ${field.maxLength} characters`;
    else if (field.type === 'email' && !Email.safeParse(value).success)
      problemsOf[field.name] = 'must be an email address, like name@example.com';
  }
  return problemsOf;
}

/**
 * Stores a visitor's answers to a form of the school (what operators read as its submissions):
 * only the form's own fields, trimmed; the first email field's answer is the submission's email.
 * A refused answer is a 422 naming the field.
 */
export async function submitForm(
  db: Db | Tx,
  schoolId: string,
  formId: string,
  answers: Readonly<Record<string, string>>,
): Promise<FormSubmission> {
  const form = await getForm(db, schoolId, formId);
  const fields = formFields(form);
  const refused = submissionProblems(fields, answers);
  const names = Object.keys(refused);
  if (names.length > 0) throw problems.validation(names.map((field) => ({ field, message: refused[field] })));
  const data = Object.fromEntries(fields.map((f) => [f.name, (answers[f.name] ?? '').trim()]));
  const emailField = fields.find((f) => f.type === 'email' && data[f.name]);
  const row: FormSubmissionsTable = {
    id: newId('fsb'),
    school_id: schoolId,
    form_id: formId,
    email: emailField ? data[emailField.name].toLowerCase() : null,
    data: JSON.stringify(data),
    submitted_at: isoNow(),
  };
  await db.insertInto('form_submissions').values(row).execute();
  return toSubmission(row);
}
