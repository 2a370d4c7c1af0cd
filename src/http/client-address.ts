import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Config } from '../config.ts';

/**
 * The client's address, the key of per-address rate limits: the first `X-Forwarded-For` hop when
 * a trusted proxy sets it (`TRUST_PROXY=true`), else the socket's peer; `unknown` without either
 * (e.g. `app.request()` in tests).
 */
export function clientAddress(config: Pick<Config, 'trustProxy'>, c: Context): string {
  if (config.trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
