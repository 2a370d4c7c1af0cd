import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../../config.ts';

/** An inclusive byte range, `start` ≤ `end` < the object's size (RFC 9110 §14.1.1). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** What the store knows of one object without reading it. */
interface ObjectStat {
  readonly size: number;
  readonly modifiedMs: number;
}

/** One object as the store lists it: a committed one, or a staged one not yet moved into place. */
export interface ListedObject extends ObjectStat {
  /** The object's key (a staged object's key is the one it will take). */
  readonly key: string;
  readonly staged: boolean;
}

/**
 * Where the bytes of stored files live, keyed by `<schoolId>/<fileId>`; the metadata is the
 * database's. A write is staged first and committed (moved to its key) once the row naming it
 * has committed, so a crash mid-write never leaves a partial object under a key.
 */
export interface FileStore {
  /** Writes `body` as the staged object of `key`. */
  stage(key: string, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<void>;
  /** Moves the staged object of `key` into place. */
  commit(key: string): Promise<void>;
  /** Removes the staged object of `key`, if any. */
  discard(key: string): Promise<void>;
  /** The object's bytes (or one range of them) as a stream read on demand; undefined if absent. */
  get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /** The object's size and modification time; undefined if absent. */
  stat(key: string): Promise<ObjectStat | undefined>;
  /** Removes the object, if any. */
  delete(key: string): Promise<void>;
  /** Every object, committed and staged, for housekeeping. */
  list(): AsyncIterable<ListedObject>;
}

/** The suffix of a staged object's file on disk. */
const STAGED = '.part';
/** How much one read of a file takes: the most a download holds in memory at once. */
const CHUNK_BYTES = 64 * 1024;
// Keys are made from ids (`sch_…/fil_…`); anything else never reaches the disk.
const KEY = /^[a-z]+_[0-9a-z]+\/[a-z]+_[0-9a-z]+$/;

function isMissing(err: unknown): boolean {
  return (err as { code?: string }).code === 'ENOENT';
}

/**
 * A stream of `handle`'s bytes from `start` to `end`, read a chunk at a time only when the
 * consumer asks (pull), so a slow reader holds one chunk, never the file; the handle closes at
 * the end, on cancel (the client went away) and on error.
 */
function readOnDemand(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const want = Math.min(CHUNK_BYTES, end + 1 - position);
          const chunk = new Uint8Array(want);
          const { bytesRead } = want > 0 ? await handle.read(chunk, 0, want, position) : { bytesRead: 0 };
          if (bytesRead === 0) {
            await close();
            if (position <= end) controller.error(new Error('the file is shorter than its size'));
            else controller.close();
            return;
          }
          position += bytesRead;
          controller.enqueue(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
          if (position > end) {
            await close();
            controller.close();
          }
        } catch (err) {
          await close().catch(() => undefined);
          controller.error(err);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/** The file store on the local disk, under `dir`: one directory per school. */
export function localFileStore(dir: string): FileStore {
  const pathOf = (key: string, staged = false): string => {
    if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
    return join(dir, staged ? `${key}${STAGED}` : key);
  };
  return {
    async stage(key, body) {
      const path = pathOf(key, true);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body, { flag: 'wx' });
    },
    async commit(key) {
      await rename(pathOf(key, true), pathOf(key));
    },
    async discard(key) {
      await rm(pathOf(key, true), { force: true });
    },
    async get(key, range) {
      let handle: FileHandle;
      try {
        handle = await open(pathOf(key), 'r');
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
      const end = range ? range.end : (await handle.stat()).size - 1;
      return readOnDemand(handle, range?.start ?? 0, end);
    },
    async stat(key) {
      try {
        const s = await stat(pathOf(key));
        return { size: s.size, modifiedMs: s.mtimeMs };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async *list() {
      const schools = await readdir(dir, { withFileTypes: true }).catch((err) => {
        if (isMissing(err)) return [];
        throw err;
      });
      for (const school of schools) {
        if (!school.isDirectory()) continue;
        for (const name of await readdir(join(dir, school.name)).catch(() => [] as string[])) {
          const staged = name.endsWith(STAGED);
          const key = `${school.name}/${staged ? name.slice(0, -STAGED.length) : name}`;
          if (!KEY.test(key)) continue;
          const s = await stat(join(dir, school.name, name)).catch(() => undefined);
          if (s?.isFile()) yield { key, staged, size: s.size, modifiedMs: s.mtimeMs };
        }
      }
    },
  };
}

/** The deployment's file store (the local disk under FILES_DIR). */
export function configuredFileStore(config: Pick<Config, 'filesDir'>): FileStore {
  return localFileStore(config.filesDir);
}
