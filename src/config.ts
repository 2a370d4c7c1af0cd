import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';

/** Raised when the environment holds a bad value; its message is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const DEFAULT_SQLITE_URL = 'file:./data/lectern.sqlite';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const port = z.coerce.number().int().min(0).max(65535);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.string().optional(),
  DATABASE_URL: z.string().min(1).default(DEFAULT_SQLITE_URL),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(300),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LECTERN_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 random bytes in base64url (43 characters)')
    .optional(),
  SEED_DEMO: bool.optional(),
  PASSWORD_HASH_COST: z.enum(['standard', 'test']).default('standard'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(100_000_000).default(1_048_576),
  UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).max(1_000_000_000).default(26_214_400),
  FILES_DIR: z.string().min(1).optional(),
  CIMD_ALLOWED_HOSTS: list.default([]),
  OPEN_REGISTRATION: bool.default(false),
  REGISTRATION_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(300),
  VENDORS_FILE: z.string().min(1).optional(),
  TRUST_PROXY: bool.default(false),
  CLIENT_SECRET_OVERLAP_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(60),
  // Checked in loadConfig, so a refused value (a secret) is never echoed in the error.
  METRICS_TOKEN: z.string().optional(),
  // Checked in loadConfig too: the URL may carry the SMTP password.
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z
    .string()
    .regex(
      /^([^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/,
      'must be an address or "Name <address>"',
    )
    .optional(),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  WEBHOOK_WORKER: bool.default(true),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(15),
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().int().min(1).max(60).default(5),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  STRIPE_API_BASE: z.string().default('https://api.stripe.com'),
});

type DatabaseEngine = 'sqlite' | 'postgres';

/** The parsed, frozen configuration every part of Lectern receives. */
export interface Config {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  /** Issuer and protected-resource identifier, without a trailing slash. */
  readonly baseUrl: string;
  readonly database: { readonly engine: DatabaseEngine; readonly url: string; readonly sqlitePath?: string };
  readonly redisUrl?: string;
  /**
   * How long a Redis command may take before the link counts Redis as down and fails open; a
   * throttle lookup must never hold a request for long.
   */
  readonly redisCommandTimeoutMs: number;
  readonly logLevel: string;
  /** 32 bytes used to encrypt private keys at rest. */
  readonly secret: Uint8Array;
  readonly seedDemo: boolean;
  /**
   * How much work a password hash takes: 'standard' (OWASP's argon2id parameters) always in
   * production; 'test' (argon2id at its smallest) lets a test suite sign people in hundreds of
   * times without spending minutes hashing.
   */
  readonly passwordHashCost: 'standard' | 'test';
  readonly bodyLimitBytes: number;
  readonly uploadLimitBytes: number;
  readonly filesDir: string;
  readonly cimd: { readonly allowedHosts: readonly string[]; readonly openRegistration: boolean };
  readonly vendorsFile?: string;
  /** Client registrations accepted per client address per 10 minutes. */
  readonly registrationRateLimit: number;
  readonly trustProxy: boolean;
  /** How long a member app's replaced client secret keeps working after a rotation (0: not at all). */
  readonly clientSecretOverlapSeconds: number;
  /**
   * How long after a rotation the replaced refresh token, presented again, gets that rotation's
   * answer again instead of revoking its grant as reuse (0: reuse is detected at once).
   */
  readonly refreshReuseGraceSeconds: number;
  readonly secureCookies: boolean;
  /** When set, `/metrics` needs `Authorization: Bearer <metricsToken>`; unset, it is open. */
  readonly metricsToken?: string;
  /** Outgoing mail: `smtp://` or `smtps://` URL (unset: links are shown instead of mailed). */
  readonly smtpUrl?: string;
  /** The sender of every email, `Name <address>`. */
  readonly mailFrom: string;
  /** Domain events: how long the audit trail keeps them. */
  readonly events: { readonly retentionDays: number };
  /** Webhook delivery (docs/webhooks.md). */
  readonly webhooks: {
    /** Whether `serve` runs the delivery worker (false when `lectern worker` runs apart). */
    readonly worker: boolean;
    readonly timeoutMs: number;
    /** An endpoint failing without a success for this long is disabled and its owners told. */
    readonly disableAfterDays: number;
    /** How long a rotated-out secret keeps signing beside the new one. */
    readonly secretOverlapSeconds: number;
    /** `http://` to loopback addresses: development and tests only, never in production. */
    readonly allowLoopbackHttp: boolean;
  };
  /** Where Lectern reaches Stripe's API (docs/payments.md): Stripe itself, or a stand-in. */
  readonly stripe: { readonly apiBase: string };
}

function fail(variable: string, message: string): never {
  throw new ConfigError(`${variable}: ${message}`);
}

function parseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail('BASE_URL', `"${raw}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('BASE_URL', 'must use http or https');
  if (url.search || url.hash) fail('BASE_URL', 'must not have a query or fragment');
  if (url.username || url.password) fail('BASE_URL', 'must not carry credentials');
  return url.href.replace(/\/+$/, '');
}

// RFC 6750 §2.1 b64token, long enough that guessing is hopeless (e.g. `openssl rand -base64 32`).
const METRICS_TOKEN = /^[A-Za-z0-9\-._~+/]{32,}=*$/;

function parseMetricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!METRICS_TOKEN.test(raw)) {
    fail(
      'METRICS_TOKEN',
      'must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (an RFC 6750 Bearer token)',
    );
  }
  return raw;
}

// The SDK takes a protocol, host and port (no path), so the origin is all the variable may hold.
function parseStripeApiBase(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    fail('STRIPE_API_BASE', 'must be an http:// or https:// origin, e.g. https://api.stripe.com');
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    fail('STRIPE_API_BASE', 'must be an origin only: no path, query, fragment or credentials');
  }
  return url.origin;
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    fail('SMTP_URL', 'must be smtp://[user:password@]host[:port] or smtps://…');
  }
  return raw;
}

function parseDatabase(raw: string): Config['database'] {
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      fail('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { engine: 'postgres', url: raw };
  }
  if (raw === ':memory:') return { engine: 'sqlite', url: raw, sqlitePath: ':memory:' };
  const path = raw.startsWith('file:') ? raw.slice('file:'.length) : raw;
  if (!path || /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    fail('DATABASE_URL', 'must be postgres://…, file:<path> or a SQLite file path');
  }
  return { engine: 'sqlite', url: raw, sqlitePath: resolve(path) };
}

/**
 * The embedded default keeps its generated secret beside the SQLite file so restarts can
 * decrypt the keys they stored. Elsewhere the secret must be given: several instances share it.
 */
function resolveSecret(given: string | undefined, env: Config['env'], db: Config['database']): Uint8Array {
  if (given) return Buffer.from(given, 'base64url');
  if (env === 'production') fail('LECTERN_SECRET', 'is required in production');
  if (db.engine !== 'sqlite') fail('LECTERN_SECRET', 'is required when DATABASE_URL is PostgreSQL');
  if (db.sqlitePath === ':memory:') return randomBytes(32);
  const file = resolve(dirname(db.sqlitePath!), 'secret.key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (!/^[A-Za-z0-9_-]{43}$/.test(stored))
      fail('LECTERN_SECRET', `the stored secret in ${file} is corrupt`);
    return Buffer.from(stored, 'base64url');
  }
  const secret = randomBytes(32);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

/**
 * The variables whose refused value may be quoted back in the error. An allow-list, not a
 * deny-list: a new variable stays unquoted until someone decides its value is harmless, so a
 * secret (LECTERN_SECRET, METRICS_TOKEN) or a URL carrying a password (DATABASE_URL, REDIS_URL,
 * SMTP_URL) never reaches a terminal or a log shipper through a typo.
 */
const ECHOED_VARIABLES = new Set([
  'NODE_ENV',
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'REDIS_COMMAND_TIMEOUT_MS',
  'SEED_DEMO',
  'PASSWORD_HASH_COST',
  'BODY_LIMIT_BYTES',
  'UPLOAD_LIMIT_BYTES',
  'FILES_DIR',
  'CIMD_ALLOWED_HOSTS',
  'OPEN_REGISTRATION',
  'REGISTRATION_RATE_LIMIT',
  'VENDORS_FILE',
  'TRUST_PROXY',
  'REFRESH_REUSE_GRACE_SECONDS',
  'MAIL_FROM',
]);

/** Parses the environment once; throws ConfigError naming the first bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const raw = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue.path[0] ?? 'environment');
    const value = ECHOED_VARIABLES.has(variable) ? raw[variable] : undefined;
    fail(variable, `${issue.message}${value === undefined ? '' : ` (got "${value}")`}`);
  }
  const e = parsed.data;
  const baseUrl = parseBaseUrl(e.BASE_URL ?? `http://localhost:${e.PORT}`);
  const database = parseDatabase(e.DATABASE_URL);
  if (e.SEED_DEMO && e.NODE_ENV === 'production')
    fail('SEED_DEMO', 'demo data is never seeded in production');
  if (e.PASSWORD_HASH_COST !== 'standard' && e.NODE_ENV === 'production')
    fail('PASSWORD_HASH_COST', 'production always hashes passwords at the standard cost');
  const filesDir = resolve(
    e.FILES_DIR ??
      (database.sqlitePath && database.sqlitePath !== ':memory:' ? dirname(database.sqlitePath) : './data'),
    e.FILES_DIR ? '.' : 'files',
  );
  const config: Config = {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    database,
    redisUrl: e.REDIS_URL,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    secret: resolveSecret(e.LECTERN_SECRET, e.NODE_ENV, database),
    seedDemo: e.SEED_DEMO ?? e.NODE_ENV !== 'production',
    passwordHashCost: e.PASSWORD_HASH_COST,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    uploadLimitBytes: e.UPLOAD_LIMIT_BYTES,
    filesDir,
    cimd: {
      allowedHosts: Object.freeze(e.CIMD_ALLOWED_HOSTS.map((h) => h.toLowerCase())),
      openRegistration: e.OPEN_REGISTRATION,
    },
    vendorsFile: e.VENDORS_FILE ? resolve(e.VENDORS_FILE) : undefined,
    registrationRateLimit: e.REGISTRATION_RATE_LIMIT,
    trustProxy: e.TRUST_PROXY,
    clientSecretOverlapSeconds: e.CLIENT_SECRET_OVERLAP_HOURS * 3600,
    refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE_SECONDS,
    secureCookies: baseUrl.startsWith('https:'),
    metricsToken: parseMetricsToken(e.METRICS_TOKEN),
    smtpUrl: parseSmtpUrl(e.SMTP_URL),
    mailFrom: e.MAIL_FROM ?? `Lectern <no-reply@${new URL(baseUrl).hostname}>`,
    events: { retentionDays: e.EVENT_RETENTION_DAYS },
    webhooks: {
      worker: e.WEBHOOK_WORKER,
      timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
      disableAfterDays: e.WEBHOOK_DISABLE_AFTER_DAYS,
      secretOverlapSeconds: e.WEBHOOK_SECRET_OVERLAP_HOURS * 3600,
      allowLoopbackHttp: e.NODE_ENV !== 'production',
    },
    stripe: { apiBase: parseStripeApiBase(e.STRIPE_API_BASE) },
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
