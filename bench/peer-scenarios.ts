import type { Scenario } from './measure.ts';
import { CONNECTIONS, warmThenMeasure } from './measure.ts';
import { FORM, measureRotation, probe } from './oauth-scenarios.ts';
import { startPeer } from './servers.ts';

const CLIENT_ID = 'peer-member-app';

/**
 * The peer rows: node-oidc-provider 9 with its in-memory adapter (peer-server.ts) doing the work
 * of Lectern's UserInfo, introspection and refresh rows. Lectern's rows name these as their
 * `peer`; the aim is 1.5× the peer's req/s on a real database against its memory store.
 */
export const peerScenarios: Scenario[] = [
  {
    name: 'peer: node-oidc-provider (memory) userinfo',
    async run() {
      const peer = await startPeer(0);
      try {
        const target = { url: `${peer.url}/me`, headers: { authorization: `Bearer ${peer.accessToken}` } };
        await probe(target.url, { headers: target.headers }, (b) => typeof b.sub === 'string');
        return { figures: await warmThenMeasure(target) };
      } finally {
        await peer.stop();
      }
    },
  },
  {
    name: 'peer: node-oidc-provider (memory) introspection',
    async run() {
      const peer = await startPeer(0);
      try {
        const body = `token=${peer.accessToken}&client_id=${CLIENT_ID}`;
        const target = {
          url: `${peer.url}/token/introspection`,
          method: 'POST' as const,
          headers: FORM,
          body,
        };
        await probe(target.url, target, (b) => b.active === true);
        return { figures: await warmThenMeasure(target) };
      } finally {
        await peer.stop();
      }
    },
  },
  {
    name: 'peer: node-oidc-provider (memory) refresh-token rotation',
    async run() {
      const peer = await startPeer(CONNECTIONS * 2 + 1);
      try {
        return await measureRotation(`${peer.url}/token`, CLIENT_ID, peer.refreshTokens);
      } finally {
        await peer.stop();
      }
    },
  },
];
