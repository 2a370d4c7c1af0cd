import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureCimdFetch } from '../../src/oauth/cimd.ts';
import type { TestApp } from '../support/app.ts';
import { writeTestCertificate } from '../support/tls.ts';

/** The CIMD client's web site in the end-to-end tests (the app needs CIMD_ALLOWED_HOSTS=HOST). */
export const CIMD_HOST = 'agent.example';

/** A local HTTPS server with a throw-away certificate serving one metadata document. */
export interface CimdSite {
  readonly clientId: string;
  readonly redirectUri: string;
  close(): Promise<void>;
}

/**
 * Serves a Client ID Metadata Document at https://agent.example:<port>/client.json and points
 * the app's CIMD fetcher (only this app's) at it: its CA and that one loopback address.
 */
export async function startCimdSite(t: TestApp, clientName = 'Example Agent'): Promise<CimdSite> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-cimd-e2e-'));
  writeTestCertificate(dir, CIMD_HOST);
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  let clientId = '';
  const redirectUri = `https://${CIMD_HOST}/callback`;
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    if (req.url !== '/client.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: clientName,
        redirect_uris: [redirectUri, 'http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  clientId = `https://${CIMD_HOST}:${(server.address() as AddressInfo).port}/client.json`;
  configureCimdFetch(t.runtime, {
    ca: cert,
    resolve: async (hostname) => (hostname === CIMD_HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
    allowAddress: '127.0.0.1',
  });
  return {
    clientId,
    redirectUri,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
