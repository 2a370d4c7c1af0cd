import { accountScenarios } from './account-scenarios.ts';
import { envelopeScenarios } from './envelope-scenarios.ts';
import { eventScenarios } from './event-scenarios.ts';
import { floorScenarios } from './floor-scenarios.ts';
import { mcpScenarios } from './mcp-scenarios.ts';
import { measure, type Scenario } from './measure.ts';
import { oauthScenarios } from './oauth-scenarios.ts';
import { pageScenarios } from './page-scenarios.ts';
import { peerScenarios } from './peer-scenarios.ts';
import { rssScenarios } from './rss-scenario.ts';
import { startLectern } from './servers.ts';

export const scenarios: Scenario[] = [
  {
    name: 'healthz (no database)',
    goal: 0.75,
    async run() {
      const server = await startLectern();
      try {
        return { figures: await measure({ url: `${server.url}/healthz` }) };
      } finally {
        await server.stop();
      }
    },
  },
  ...envelopeScenarios,
  ...oauthScenarios,
  ...peerScenarios,
  ...accountScenarios,
  ...mcpScenarios,
  ...pageScenarios,
  ...floorScenarios,
  ...eventScenarios,
  ...rssScenarios,
];
