import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CimdFetchOptions } from '../../src/oauth/clients/cimd-fetch.ts';
import { writeTestCertificate } from '../support/tls.ts';

/** The CIMD client's web site in the end-to-end tests (the app needs CIMD_ALLOWED_HOSTS=HOST). */
export const CIMD_HOST = 'agent.example';

/** A local HTTPS server with a throw-away certificate serving one metadata document. */
export interface CimdSite {
  readonly clientId: string;
  readonly redirectUri: string;
  /** How an app's CIMD fetcher reaches this site (only that app's): its CA and one loopback address. */
  readonly fetchOptions: CimdFetchOptions;
  close(): Promise<void>;
}

/**
 * Serves a Client ID Metadata Document at https://agent.example:<port>/client.json; an app built
 * with the site's `fetchOptions` fetches it there.
 */
export async function startCimdSite(clientName = 'Example Agent'): Promise<CimdSite> {
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
  return {
    clientId,
    redirectUri,
    fetchOptions: {
      ca: cert,
      resolve: async (hostname) => (hostname === CIMD_HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
      allowAddress: '127.0.0.1',
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
