import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Writes a throw-away self-signed certificate for `host` (EC P-256, valid one day) as `key.pem`
 * and `cert.pem` into `dir`, with the openssl CLI: the local HTTPS sites of the CIMD tests.
 */
export function writeTestCertificate(dir: string, host: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=DNS:${host}`,
    ],
    { stdio: 'ignore' },
  );
}
