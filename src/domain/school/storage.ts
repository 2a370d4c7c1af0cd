import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { StoredFilesTable } from '../kernel/tables.ts';

/**
 * The embedded file store: bytes on disk under `filesDir/<school>/<id>`, metadata in
 * `stored_files`. Only types on the allowlist are kept, and their first bytes must agree with
 * the declared type, so a file can never be served as something more dangerous than it claims
 * (no HTML, no SVG, no scripts).
 */
const ALLOWED_TYPES: Readonly<Record<string, ((b: Uint8Array) => boolean) | null>> = {
  'image/png': (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => starts(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'),
  'image/webp': (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'),
  'application/pdf': (b) => ascii(b, 0, '%PDF-'),
  'application/zip': (b) => starts(b, [0x50, 0x4b, 0x03, 0x04]),
  'application/epub+zip': (b) => starts(b, [0x50, 0x4b, 0x03, 0x04]),
  'video/mp4': (b) => ascii(b, 4, 'ftyp'),
  'audio/mp4': (b) => ascii(b, 4, 'ftyp'),
  'video/webm': (b) => starts(b, [0x1a, 0x45, 0xdf, 0xa3]),
  'audio/mpeg': (b) => ascii(b, 0, 'ID3') || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0),
  'text/plain': null,
  'text/csv': null,
  'text/markdown': null,
};

function starts(b: Uint8Array, sig: number[]): boolean {
  return b.length >= sig.length && sig.every((v, i) => b[i] === v);
}
function ascii(b: Uint8Array, at: number, s: string): boolean {
  return b.length >= at + s.length && [...s].every((ch, i) => b[at + i] === ch.charCodeAt(0));
}

/** A file's metadata. */
export interface StoredFile {
  id: string;
  schoolId: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
}

function toFile(r: StoredFilesTable): StoredFile {
  return {
    id: r.id,
    schoolId: r.school_id,
    filename: r.filename,
    contentType: r.content_type,
    sizeBytes: r.size_bytes,
    sha256: r.sha256,
    createdAt: r.created_at,
  };
}

/** The media type without parameters, lower-cased. */
function baseMediaType(value: string): string {
  return value.split(';')[0].trim().toLowerCase();
}

// Text types must be UTF-8 without NUL bytes: anything else is binary in disguise.
function plausibleText(b: Uint8Array): boolean {
  if (b.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** A safe download name: no path, no control or quoting characters, ≤ 200 characters. */
function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = [...base]
    .filter((ch) => ch.charCodeAt(0) > 0x1f && ch.charCodeAt(0) !== 0x7f && !'"\\;'.includes(ch))
    .join('')
    .trim()
    .slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

/** Stores a file for a school after checking size, type and content; returns its metadata. */
export async function storeFile(
  db: Db | Tx,
  filesDir: string,
  limitBytes: number,
  schoolId: string,
  upload: { bytes: Uint8Array; contentType: string; filename: string },
): Promise<StoredFile> {
  const type = baseMediaType(upload.contentType);
  if (upload.bytes.length === 0)
    throw problems.validation([{ field: 'body.file', message: 'must not be empty' }]);
  if (upload.bytes.length > limitBytes) throw problems.payloadTooLarge(limitBytes);
  if (!(type in ALLOWED_TYPES)) {
    throw problem('unsupported_file_type', {
      detail: `Files of type ${type || '(none)'} are not accepted. Accepted: ${Object.keys(ALLOWED_TYPES).join(', ')}.`,
    });
  }
  const sniff = ALLOWED_TYPES[type];
  if (sniff ? !sniff(upload.bytes) : !plausibleText(upload.bytes)) {
    throw problem('content_type_mismatch', {
      detail: `The file's content is not ${type}.`,
    });
  }
  const id = newId('fil');
  const key = `${schoolId}/${id}`;
  await mkdir(join(filesDir, schoolId), { recursive: true });
  await writeFile(join(filesDir, key), upload.bytes, { flag: 'wx' });
  const row: StoredFilesTable = {
    id,
    school_id: schoolId,
    filename: safeFilename(upload.filename),
    content_type: type,
    size_bytes: upload.bytes.length,
    sha256: createHash('sha256').update(upload.bytes).digest('hex'),
    storage_key: key,
    created_at: isoNow(),
  };
  try {
    await db.insertInto('stored_files').values(row).execute();
  } catch (err) {
    await rm(join(filesDir, key), { force: true });
    throw err;
  }
  return toFile(row);
}

async function fileRow(db: Db | Tx, schoolId: string, id: string): Promise<StoredFilesTable> {
  const row = await db
    .selectFrom('stored_files')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such file.');
  return row;
}

/** A file's metadata; 404 unless it is the school's. */
export async function getStoredFile(db: Db | Tx, schoolId: string, id: string): Promise<StoredFile> {
  return toFile(await fileRow(db, schoolId, id));
}

/** A file's metadata and bytes; 404 unless it is the school's. */
export async function readStoredFile(db: Db | Tx, filesDir: string, schoolId: string, id: string) {
  const row = await fileRow(db, schoolId, id);
  let bytes: Buffer;
  try {
    bytes = await readFile(join(filesDir, row.storage_key));
  } catch (err) {
    // Metadata without bytes (a restored database, a wiped disk) is a missing file, not a 500.
    if ((err as { code?: string }).code === 'ENOENT')
      throw problems.notFound('The file’s content is missing.');
    throw err;
  }
  return { file: toFile(row), bytes: new Uint8Array(bytes) };
}

/** Deletes a file; what referenced it (logo, lecture, product) loses the reference. */
export async function deleteStoredFile(
  db: Db | Tx,
  filesDir: string,
  schoolId: string,
  id: string,
): Promise<void> {
  const row = await fileRow(db, schoolId, id);
  await db.deleteFrom('stored_files').where('id', '=', row.id).execute();
  await rm(join(filesDir, row.storage_key), { force: true });
}

/** Checks that a file id names a file of this school (422 on `field` otherwise). */
export async function requireSchoolFile(
  db: Db | Tx,
  schoolId: string,
  fileId: string,
  field = 'fileId',
): Promise<void> {
  const f = await db
    .selectFrom('stored_files')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', '=', fileId)
    .executeTakeFirst();
  if (!f) throw problems.validation([{ field, message: 'no such file at this school' }]);
}

/** Files of the school, oldest first, by media type prefix (`image/`) or filename search. */
export async function listStoredFiles(
  db: Db | Tx,
  schoolId: string,
  filter: { contentType?: string; search?: string } = {},
  page: PageParams = {},
): Promise<Page<StoredFile>> {
  let q = db
    .selectFrom('stored_files')
    .selectAll('stored_files')
    .where('stored_files.school_id', '=', schoolId);
  if (filter.contentType) {
    const type = filter.contentType.toLowerCase();
    q = type.endsWith('/')
      ? q.where('stored_files.content_type', 'like', `${type.replace(/[\\%_]/g, '')}%`)
      : q.where('stored_files.content_type', '=', type);
  }
  if (filter.search)
    q = q.where(sql`lower(stored_files.filename)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  return mapPage(await paginate(q, page, { table: 'stored_files' }), toFile);
}
