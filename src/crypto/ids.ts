import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** The 80 random bits as two 40-bit halves: plain numbers (exact below 2^53), no BigInt. */
const HALF = 2 ** 40;

/**
 * Random bytes drawn from the CSPRNG a page at a time: one `randomFillSync` per 4 KiB instead of
 * one per id (an id is made inside every write; a `randomBytes` call and BigInt arithmetic were
 * 11 µs of it, a large share of what an event may add to a write, docs/performance.md).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomBytes(n: number): number {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += n;
  return at;
}

/** A random integer below 2^40. */
function random40(): number {
  const at = randomBytes(5);
  return pool.readUIntBE(at, 5);
}

/** The last id's millisecond and random halves, so ids made within one millisecond keep increasing. */
let lastTime = -1;
let lastHigh = 0;
let lastLow = 0;

/** `length` base32 characters of a non-negative integer below 2^53 (most significant first). */
function encode(value: number, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    const digit = v % 32;
    out = CROCKFORD[digit] + out;
    v = (v - digit) / 32;
  }
  return out;
}

/**
 * A prefixed, time-sortable id (ULID layout: 48-bit milliseconds then 80 random bits, Crockford
 * base32), so ordering by id is ordering by creation and cursors can be plain ids. Monotonic
 * within the process (the ULID spec's monotonic mode): a second id in the same millisecond takes
 * the previous random part plus a random step (1 to 2^32), so ids made one after another always
 * sort in creation order and the next one is not guessable. Should the 80 bits ever overflow, the
 * id moves into the next millisecond.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = now;
  let high: number;
  let low: number;
  if (time === lastTime) {
    low = lastLow + pool.readUInt32BE(randomBytes(4)) + 1;
    high = lastHigh;
    if (low >= HALF) {
      low -= HALF;
      high += 1;
    }
    if (high >= HALF) {
      time += 1;
      high = random40();
      low = random40();
    }
  } else {
    high = random40();
    low = random40();
  }
  lastTime = time;
  lastHigh = high;
  lastLow = low;
  return `${prefix}_${encode(time, 10)}${encode(high, 8)}${encode(low, 8)}`;
}

/**
 * The smallest id `prefix` can have at millisecond `time`: every id made before `time` sorts
 * below it, so a range over ids is a range over creation time (e.g. pruning by age).
 */
export function idFloor(prefix: string, time: number): string {
  return `${prefix}_${encode(time, 10)}${'0'.repeat(16)}`;
}
