import { z } from 'zod';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { parseValid, withTransaction } from '../kernel/checks.ts';
import { Color, Id } from '../kernel/fields.ts';
import type { AppearanceTable } from '../kernel/tables.ts';

/** Font stacks a theme may use: named so a theme can never inject CSS. */
export const FONTS = [
  'system-ui',
  'serif',
  'sans-serif',
  'monospace',
  'Inter',
  'Roboto',
  'Open Sans',
  'Lato',
  'Merriweather',
  'Source Sans 3',
] as const;
type Font = (typeof FONTS)[number];

/** A school's theme. */
export interface Appearance {
  primaryColor: string;
  accentColor: string;
  font: Font;
  logoFileId: string | null;
  updatedAt: string;
}

/** The theme's fields as an operator writes them (the admin API derives its body). */
export const AppearanceFields = z
  .object({
    primaryColor: Color,
    accentColor: Color,
    font: z.enum(FONTS),
    logoFileId: Id.nullable(),
  })
  .partial();
export type AppearancePatch = z.input<typeof AppearanceFields>;

function toAppearance(r: AppearanceTable): Appearance {
  return {
    primaryColor: r.primary_color,
    accentColor: r.accent_color,
    // The column only holds what updateAppearance accepted (one of FONTS).
    font: r.font as Font,
    logoFileId: r.logo_file_id,
    updatedAt: r.updated_at,
  };
}

/** The school's theme; 404 if the school does not exist. */
export async function getAppearance(db: Db | Tx, schoolId: string): Promise<Appearance> {
  const row = await db
    .selectFrom('appearance')
    .selectAll()
    .where('school_id', '=', schoolId)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such school.');
  return toAppearance(row);
}

/** Changes the theme; a logo must be an image already uploaded to this school's file store. */
export async function updateAppearance(
  db: Db | Tx,
  schoolId: string,
  input: AppearancePatch,
): Promise<Appearance> {
  const patch = parseValid(AppearanceFields, input);
  const set: Partial<AppearanceTable> = {
    primary_color: patch.primaryColor?.toLowerCase(),
    accent_color: patch.accentColor?.toLowerCase(),
    font: patch.font,
  };
  return withTransaction(db, async (tx) => {
    if (patch.logoFileId !== undefined) {
      if (patch.logoFileId !== null) {
        const file = await tx
          .selectFrom('stored_files')
          .select('content_type')
          .where('school_id', '=', schoolId)
          .where('id', '=', patch.logoFileId)
          .executeTakeFirst();
        if (!file)
          throw problems.validation([{ field: 'logoFileId', message: 'no such file at this school' }]);
        if (!file.content_type.startsWith('image/'))
          throw problems.validation([{ field: 'logoFileId', message: 'must be an image' }]);
      }
      set.logo_file_id = patch.logoFileId;
    }
    const r = await tx
      .updateTable('appearance')
      .set({ ...set, updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw problems.notFound('No such school.');
    return getAppearance(tx, schoolId);
  });
}
