import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;

/** The last id's millisecond and random part, so ids made within one millisecond keep increasing. */
let lastTime = -1;
let lastRandom = 0n;

function randomPart(): bigint {
  return BigInt(`0x${randomBytes(10).toString('hex')}`);
}

/** 1 to 2^32: the step between two ids of one millisecond, random so the next id is not guessable. */
function randomStep(): bigint {
  return BigInt(randomBytes(4).readUInt32BE(0)) + 1n;
}

function encode(value: bigint, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(v & 31n)] + out;
    v >>= 5n;
  }
  return out;
}

/**
 * A prefixed, time-sortable id (ULID layout: 48-bit milliseconds then 80 random bits, Crockford
 * base32), so ordering by id is ordering by creation and cursors can be plain ids. Monotonic
 * within the process (the ULID spec's monotonic mode): a second id in the same millisecond takes
 * the previous random part plus a random step, so ids made one after another always sort in
 * creation order. Should the 80 bits ever overflow, the id moves into the next millisecond.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = now;
  let random: bigint;
  if (time === lastTime) {
    random = lastRandom + randomStep();
    if (random > RANDOM_MAX) {
      time += 1;
      random = randomPart();
    }
  } else {
    random = randomPart();
  }
  lastTime = time;
  lastRandom = random;
  return `${prefix}_${encode(BigInt(time), 10)}${encode(random, 16)}`.toLowerCase();
}

/**
 * The smallest id `prefix` can have at millisecond `time`: every id made before `time` sorts
 * below it, so a range over ids is a range over creation time (e.g. pruning by age).
 */
export function idFloor(prefix: string, time: number): string {
  return `${prefix}_${encode(BigInt(time), 10)}${'0'.repeat(16)}`.toLowerCase();
}
