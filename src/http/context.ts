import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SigningKeys } from '../crypto/signing-keys.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { CimdFetcher } from '../oauth/clients/cimd.ts';
import type { BearerVerifier } from '../resource/verifier.ts';
import type { Db } from '../store/database.ts';
import type { RedisLink } from '../store/redis.ts';
import type { Clock } from '../store/time.ts';
import type { Metrics } from './metrics.ts';
import type { Throttle } from './throttle.ts';

/**
 * What every feature sub-app is built from: passed in, never imported as a global. The services
 * on it are built once, by the runtime (runtime.ts); none hangs on a module-level map.
 */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * What time it is for this app: the system's, or the one a test moves. app.ts binds it to every
   * request, so expiry and windows read it through `nowMs()` (store/time.ts).
   */
  readonly clock: Clock;
  /** Rate limits (sign-in, registration): one per app, shared through Redis when configured. */
  readonly throttle: Throttle;
  /** Bearer-token verification for every protected surface (resource/verifier.ts). */
  readonly verifier: BearerVerifier;
  /** The id_token signing keys and this instance's cached view of them. */
  readonly signingKeys: SigningKeys;
  /** The Client ID Metadata Document fetcher: its options, remembered refusals, fetches in flight. */
  readonly cimd: CimdFetcher;
  /** Outgoing mail over `SMTP_URL`; `enabled` is false without it. */
  readonly mailer: Mailer;
  /** The connection of `REDIS_URL`, when set. */
  readonly redis?: RedisLink;
}

/** Hono environment shared by the sub-apps. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The client a bearer token or client authentication named (access log; http/access-log.ts). */
    clientId?: string;
  };
}
