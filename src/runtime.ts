import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type pino from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { setPasswordHashCost } from './crypto/passwords.ts';
import { createSigningKeys } from './crypto/signing-keys.ts';
import type { AppContext, AppEnv } from './http/context.ts';
import { createLogger } from './http/logger.ts';
import { createMetrics } from './http/metrics.ts';
import { createThrottle } from './http/throttle.ts';
import { createMailer } from './mail/mailer.ts';
import { createCimdFetcher } from './oauth/clients/cimd.ts';
import type { CimdFetchOptions } from './oauth/clients/cimd-fetch.ts';
import { ensureVendorClients } from './oauth/clients/vendors.ts';
import { createBearerVerifier } from './resource/verifier.ts';
import { type Db, migrateToLatest, openDatabase } from './store/database.ts';
import { openRedis, redisTimeouts } from './store/redis.ts';
import { type Clock, systemClock, withClock } from './store/time.ts';

/** The live parts of a running Lectern: what the app is built from, and how to close it. */
export interface Runtime extends AppContext {
  /** The migrations this start applied, oldest first (empty when none was pending). */
  readonly migrated: readonly string[];
  close(): Promise<void>;
}

/**
 * Opens the database, migrates it and builds the shared context with its services, each once.
 * Unless `syncClients` is false (commands that serve nothing), the vendor and console clients are
 * written now, at start-up, so that looking a client up never writes.
 */
export async function openRuntime(
  config: Config,
  options: {
    db?: Db;
    logger?: Logger;
    logDestination?: pino.DestinationStream;
    processMetrics?: boolean;
    /** How metadata documents are fetched (tests: their CA, resolver and loopback address). */
    cimdFetch?: CimdFetchOptions;
    syncClients?: boolean;
    /** What time it is (the system's unless a test passes one it can move). */
    clock?: Clock;
  } = {},
): Promise<Runtime> {
  setPasswordHashCost(config.passwordHashCost);
  const logger = options.logger ?? createLogger(config.logLevel, options.logDestination);
  const db = options.db ?? openDatabase(config.database);
  let migrated: string[];
  try {
    migrated = await migrateToLatest(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const clock = options.clock ?? systemClock;
  const metrics = createMetrics(options.processMetrics ?? true);
  // Connected on first use: commands that never throttle (migrate, seed…) never dial Redis.
  const redis = config.redisUrl
    ? openRedis(config.redisUrl, {
        logger,
        registry: metrics.registry,
        timeouts: redisTimeouts(config.redisCommandTimeoutMs),
      })
    : undefined;
  const throttle = createThrottle({
    redis,
    registry: metrics.registry,
    // Outages are logged once by the link; a single failed call is only worth a debug line.
    onError: (err) => logger.debug({ err }, 'throttle call to Redis failed; attempt let through'),
  });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  const runtime: Runtime = {
    config,
    db,
    logger,
    metrics,
    clock,
    throttle,
    verifier: createBearerVerifier({ db, config }),
    signingKeys: createSigningKeys({ db, secret: config.secret }),
    cimd: createCimdFetcher({ db, config, logger }, options.cimdFetch),
    mailer,
    redis,
    migrated,
    close: async () => {
      mailer.close();
      await throttle.close();
      await redis?.close();
      await db.destroy();
    },
  };
  if (options.syncClients ?? true) {
    try {
      await withClock(clock, () => ensureVendorClients(runtime));
    } catch (err) {
      await runtime.close();
      throw err;
    }
  }
  return runtime;
}

/** A listening HTTP server and its graceful stop. */
export interface RunningServer {
  readonly server: ServerType;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes the rest. */
  shutdown(graceMs?: number): Promise<void>;
}

/** Serves an app on host:port (port 0 picks a free one). */
export function listen(app: Hono<AppEnv>, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        server,
        url: `http://${shownHost}:${info.port}`,
        shutdown: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            closing = true;
            const force = setTimeout(() => http.closeAllConnections(), graceMs);
            force.unref();
            http.close(() => {
              clearTimeout(force);
              done();
            });
            // Idle keep-alive sockets would hold close() open; in-flight ones finish first.
            http.closeIdleConnections();
          }),
      });
    });
    const http = server as import('node:http').Server;
    // A keep-alive connection whose response ends after shutdown began would otherwise linger
    // until the keep-alive timeout: tell the client to close, and drop it once idle.
    http.on('request', (_req, res) => {
      if (closing && !res.headersSent) res.setHeader('Connection', 'close');
      res.once('finish', () => {
        if (closing) setImmediate(() => http.closeIdleConnections());
      });
    });
    server.once('error', reject);
  });
}
