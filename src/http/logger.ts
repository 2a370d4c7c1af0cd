import pino, { type Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log line: credentials never reach logs. */
const REDACT = [
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'cookie',
  '*.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.client_secret',
  'client_secret',
  '*.access_token',
  'access_token',
  '*.refresh_token',
  'refresh_token',
  '*.id_token',
  '*.code',
  '*.code_verifier',
  '*.token',
  'token',
  'secret',
  '*.secret',
  // A school's Stripe keys (docs/payments.md), in either spelling.
  'secret_key',
  '*.secret_key',
  'secretKey',
  '*.secretKey',
  'webhook_secret',
  '*.webhook_secret',
  'webhookSecret',
  '*.webhookSecret',
];

/**
 * JSON logger with secrets redacted. Standard output is written synchronously: pino's asynchronous
 * stream was seen to reorder lines and lose the last one on exit. There is one
 * access-log line per request (http/access-log.ts); its cost with a synchronous write is measured
 * in docs/decisions.md, and moving to an asynchronous stream needs a test for ordering first.
 */
export function createLogger(
  level: string,
  destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      level,
      base: { service: 'lectern' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
