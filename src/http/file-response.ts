import type { Context } from 'hono';

/** An inclusive byte range within a file. */
interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A file to send: its size, validators, and its bytes read on demand (whole or one range). */
export interface FileBody {
  readonly size: number;
  /** A strong entity tag, quoted. */
  readonly etag?: string;
  readonly lastModified?: Date;
  open(range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
}

// RFC 9110 §14.1.1: `bytes=` then int-range (first-last or first-) or suffix-range (-length).
const ONE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * The one byte range a `Range` header asks of `size` bytes (RFC 9110 §14.1.2), 'unsatisfiable'
 * when it asks for none of them, or undefined when the header is absent, malformed (a last-pos
 * before its first-pos included) or asks for several ranges: a server may ignore Range
 * (§14.2), and sends the whole file instead.
 */
function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined || header.length > 200) return undefined;
  const m = ONE_RANGE.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    // §14.1.3: a suffix-length of zero selects nothing.
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const first = Number(m[1]);
  const last = m[2] === '' ? Number.POSITIVE_INFINITY : Number(m[2]);
  if (last < first) return undefined;
  // §14.1.3: an int-range is satisfiable when its first-pos is below the length.
  if (first >= size) return 'unsatisfiable';
  return { start: first, end: Math.min(last, size - 1) };
}

/**
 * Whether an `If-Range` condition holds (RFC 9110 §13.1.5): an entity tag must match strongly
 * (a weak one never does), a date must equal Last-Modified exactly; without the validator it
 * names, it does not hold, and the whole file is sent.
 */
function ifRangeHolds(value: string | undefined, file: FileBody): boolean {
  if (value === undefined) return true;
  const v = value.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return file.etag !== undefined && v === file.etag;
  return file.lastModified !== undefined && v === file.lastModified.toUTCString();
}

/**
 * A response sending `file` with `headers` (its type, disposition, caching): the bytes stream
 * from the store as the client reads them, never held whole. GET honours one byte range
 * (206 with Content-Range; 416 with a Content-Range of the size alone when unsatisfiable), subject
 * to If-Range; HEAD gets the headers of the whole file and opens nothing (RFC 9110 §9.3.2, §14).
 */
export async function fileResponse(
  c: Context,
  file: FileBody,
  headers: Record<string, string>,
): Promise<Response> {
  const all: Record<string, string> = { ...headers, 'Accept-Ranges': 'bytes' };
  if (file.etag) all.ETag = file.etag;
  if (file.lastModified) all['Last-Modified'] = file.lastModified.toUTCString();
  const method = c.req.method;
  // §14.2: range handling is defined for GET only; any other method ignores Range.
  const range =
    method === 'GET' && ifRangeHolds(c.req.header('if-range'), file)
      ? requestedRange(c.req.header('range'), file.size)
      : undefined;
  if (range === 'unsatisfiable') {
    return c.body(null, 416, { ...all, 'Content-Range': `bytes */${file.size}`, 'Content-Length': '0' });
  }
  if (range) {
    const length = String(range.end - range.start + 1);
    const body = await file.open(range);
    return c.body(body, 206, {
      ...all,
      'Content-Range': `bytes ${range.start}-${range.end}/${file.size}`,
      'Content-Length': length,
    });
  }
  all['Content-Length'] = String(file.size);
  if (method === 'HEAD') return c.body(null, 200, all);
  return c.body(await file.open(), 200, all);
}
