/**
 * The peer: node-oidc-provider 9 on the same runtime, with its in-memory adapter (nothing on
 * disk, nothing over a socket to a database). It answers UserInfo, introspection and refresh
 * rotation for one public client, as Lectern's demo member app is, so the bench can print
 * Lectern's ratio to a mature Node authorization server doing the same work.
 *
 * Prints one JSON line on stdout once listening: { port, accessToken, refreshTokens[] }.
 */
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

// The default in-memory adapter keeps 1 000 entries (an LRU): a refresh run writes an access and
// a refresh token per rotation, so within a second the tokens held back for after the warm-up
// were evicted and every later request was refused (55 k non-2xx in an earlier run). Lectern's
// store keeps every row, so the peer's memory adapter gets a store that keeps every entry too.
const store = new LRU({ maxSize: 10_000_000 });
const adapter = (model: string) => new MemoryAdapter(model, store);

const port = Number(process.argv[2] ?? 0);
const refreshCount = Number(process.argv[3] ?? 64);
const issuer = `http://127.0.0.1:${port}`;
const CLIENT_ID = 'peer-member-app';
const account = {
  accountId: 'usr_peer',
  claims: async () => ({ sub: 'usr_peer', email: 'student@example.com', name: 'Demo Student' }),
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
  adapter,
  features: { introspection: { enabled: true }, devInteractions: { enabled: false } },
  findAccount: async (_ctx: unknown, id: string) => (id === account.accountId ? account : undefined),
  ttl: { AccessToken: 3600, RefreshToken: 86_400, IdToken: 3600, Grant: 86_400 },
  // The same rule Lectern applies: every refresh rotates (the default does so for public clients).
  rotateRefreshToken: () => true,
});
provider.on('server_error', (_ctx, err) => console.error(err));

// One grant per refresh token, as Lectern's refresh row issues them (oauth-scenarios.ts): a
// refused rotation (reuse) revokes its grant's tokens, and should end only its own chain.
async function mint() {
  const client = await provider.Client.find(CLIENT_ID);
  if (!client) throw new Error('peer client missing');
  const scope = 'openid profile email';
  const newGrant = async () => {
    const grant = new provider.Grant({ accountId: account.accountId, clientId: CLIENT_ID });
    grant.addOIDCScope(scope);
    return grant.save();
  };
  const accessToken = await new provider.AccessToken({
    accountId: account.accountId,
    client,
    grantId: await newGrant(),
    scope,
    gty: 'authorization_code',
  }).save();
  const refreshTokens: string[] = [];
  for (let i = 0; i < refreshCount; i++) {
    refreshTokens.push(
      await new provider.RefreshToken({
        accountId: account.accountId,
        client,
        grantId: await newGrant(),
        scope,
        gty: 'authorization_code',
        authTime: Math.floor(Date.now() / 1000),
      }).save(),
    );
  }
  return { accessToken, refreshTokens };
}

const callback = provider.callback();
const server = createServer((req, res) => {
  if (req.url === '/') {
    res.end('up');
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', async () => {
  const tokens = await mint();
  process.stdout.write(`${JSON.stringify({ port, ...tokens })}\n`);
});
