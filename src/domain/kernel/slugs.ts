import { sql } from 'kysely';
import type { Tx } from '../../store/database.ts';
import { slugTaken } from './checks.ts';
import { Slug } from './fields.ts';

/**
 * Slugs made from titles: a course, post or page needs none from its author. The title becomes
 * lower-case ASCII words joined by hyphens (accents transliterated), unique in the school by a
 * `-2`, `-3` … suffix. An explicit slug is taken as given, and refused when taken.
 */

/** The longest slug the Slug rule allows (fields.ts). */
const MAX_SLUG = 100;
/** Room left for a `-<n>` suffix under MAX_SLUG. */
const MAX_BASE = MAX_SLUG - 6;
/** How many candidates one insert tries before giving up (each lost race moves one on). */
const MAX_TRIES = 20;

// Letters NFKD does not split into a base letter and a mark.
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ħ: 'h',
  ŋ: 'n',
};

/**
 * The slug of a title: lower-case ASCII letters and digits in hyphen-joined words, accents
 * transliterated (“Café Crème” → `cafe-creme`), at most MAX_BASE characters; `fallback` when
 * nothing of the title is left (a title of symbols, or of a script with no ASCII spelling).
 */
function slugFromTitle(title: string, fallback: string): string {
  const ascii = title
    .toLowerCase()
    .replace(/[ßæœøđðþłıħŋ]/g, (ch) => LETTERS[ch] ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = ascii.slice(0, MAX_BASE).replace(/-+$/, '');
  return cut === '' ? fallback : cut;
}

/**
 * The slug of a create: optional, made from the title when left out (the operations say so; the
 * field keeps the Slug rule's own wording, which the console shows as its hint).
 */
export const SlugOnCreate = Slug.optional();

/** The tables whose rows a school addresses by slug (unique per school). */
type SluggedTable = 'courses' | 'posts' | 'pages';

/** The slugs of the school that `base` or `base-<n>` would collide with. */
async function takenLike(tx: Tx, table: SluggedTable, schoolId: string, base: string): Promise<Set<string>> {
  const rows = await tx
    .selectFrom(table)
    .select('slug')
    .where('school_id', '=', schoolId)
    .where((eb) => eb.or([eb('slug', '=', base), eb(sql`slug`, 'like', `${base}-%`)]))
    .execute();
  return new Set(rows.map((r) => r.slug));
}

/** What a create needs to place its row under a slug. */
export interface SlugPlacement {
  readonly table: SluggedTable;
  readonly schoolId: string;
  /** `course`, `post`, `page`: the word of the 409 and the fallback slug. */
  readonly noun: string;
  /** The slug the client gave, if any: used as is. */
  readonly explicit: string | undefined;
  readonly title: string;
}

/**
 * Inserts a row under its slug and returns the slug used. `insert` writes the row with the
 * slug it is given and says whether it was written; it must be an INSERT … ON CONFLICT
 * (school_id, slug) DO NOTHING, so a slug taken by a concurrent request is waited for
 * (PostgreSQL) and answered by trying the next candidate, never by a failed transaction.
 * An explicit slug that is taken is a 409 `slug_taken`.
 */
export async function insertUnderSlug(
  tx: Tx,
  place: SlugPlacement,
  insert: (slug: string) => Promise<boolean>,
): Promise<string> {
  if (place.explicit !== undefined) {
    if (await insert(place.explicit)) return place.explicit;
    throw slugTaken(place.noun, place.explicit);
  }
  const base = slugFromTitle(place.title, place.noun);
  const taken = await takenLike(tx, place.table, place.schoolId, base);
  let n = 1;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    let candidate = n === 1 ? base : `${base}-${n}`;
    while (taken.has(candidate)) {
      n += 1;
      candidate = `${base}-${n}`;
    }
    if (await insert(candidate)) return candidate;
    taken.add(candidate);
  }
  throw slugTaken(place.noun, base);
}
