import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { StoredFilesTable } from '../kernel/tables.ts';
import type { ByteRange, FileStore } from './file-store.ts';

/**
 * The school's files: bytes in the file store (file-store.ts) under `<school>/<id>`, metadata in
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
    // Names stored before bidirectional controls were stripped lose them when read.
    filename: cleanFileName(r.filename),
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

// Bidirectional controls (Unicode UAX #9: ALM, LRM, RLM, the embeddings and overrides, the
// isolates) reorder how a name is shown: `report\u202Efdp.exe.txt` reads as "reporttxt.exe.pdf".
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A safe file name, wherever one is accepted: no path, no control, bidirectional-control or
 * quoting characters, ≤ 200 characters; "file" when nothing is left.
 */
function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = [...base.replace(BIDI_CONTROLS, '')]
    .filter((ch) => ch.charCodeAt(0) > 0x1f && ch.charCodeAt(0) !== 0x7f && !'"\\;'.includes(ch))
    .join('')
    .trim()
    .slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

/**
 * Stores a file for a school after checking size, type and content; returns its metadata. The
 * bytes are staged, the row inserted, and only then are the bytes moved into place: a crash
 * leaves at most a staged object no row names, which the sweep removes (storage-sweep.ts).
 */
export async function storeFile(
  db: Db | Tx,
  files: FileStore,
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
  const row: StoredFilesTable = {
    id,
    school_id: schoolId,
    filename: cleanFileName(upload.filename),
    content_type: type,
    size_bytes: upload.bytes.length,
    sha256: createHash('sha256').update(upload.bytes).digest('hex'),
    storage_key: key,
    created_at: isoNow(),
  };
  try {
    await files.stage(key, upload.bytes);
    await db.insertInto('stored_files').values(row).execute();
    // Inside a caller's transaction the row commits later; should it roll back, the object
    // moved here has no row, and the sweep removes it after its grace period.
    await files.commit(key);
  } catch (err) {
    await files.discard(key).catch(() => undefined);
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

/** A stored file's bytes, read on demand: what a download response needs. */
export interface StoredContent {
  readonly size: number;
  /** A strong entity tag (RFC 9110 §8.8.3): the bytes' SHA-256. */
  readonly etag: string;
  /** When the bytes were stored; a file's bytes never change. */
  readonly lastModified: Date;
  /** The bytes, or one range of them; 404 if they went missing since. */
  open(range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
}

const contentMissing = () => problems.notFound('The file’s content is missing.');

/**
 * A file's metadata and a way to read its bytes, without reading them; 404 unless it is the
 * school's, and 404 when its bytes are missing (a restored database, a wiped disk).
 */
export async function openStoredFile(
  db: Db | Tx,
  files: FileStore,
  schoolId: string,
  id: string,
): Promise<{ file: StoredFile; content: StoredContent }> {
  const row = await fileRow(db, schoolId, id);
  const found = await files.stat(row.storage_key);
  if (!found) throw contentMissing();
  const content: StoredContent = {
    size: found.size,
    etag: `"${row.sha256}"`,
    lastModified: new Date(row.created_at),
    async open(range) {
      const stream = await files.get(row.storage_key, range);
      if (!stream) throw contentMissing();
      return stream;
    },
  };
  return { file: toFile(row), content };
}

/** Deletes a file; what referenced it (logo, lecture, product) loses the reference. */
export async function deleteStoredFile(
  db: Db | Tx,
  files: FileStore,
  schoolId: string,
  id: string,
): Promise<void> {
  const row = await fileRow(db, schoolId, id);
  await db.deleteFrom('stored_files').where('id', '=', row.id).execute();
  await files.delete(row.storage_key);
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
