import type { Kysely } from 'kysely';
import { createFanOut } from '../../webhooks/fan-out.ts';

/**
 * The webhook fan-out trigger on `domain_events`, generated from the catalogue's one subscription
 * rule (webhooks/fan-out.ts) on both engines; it replaces a trigger written by hand, if any.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createFanOut(db);
}
