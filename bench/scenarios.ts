import { accountScenarios } from './account-scenarios.ts';
import { floorScenarios } from './floor-scenarios.ts';
import { mcpScenarios } from './mcp-scenarios.ts';
import { type Figures, measure } from './measure.ts';
import { oauthScenarios } from './oauth-scenarios.ts';
import { startLectern } from './servers.ts';

/** One load scenario: its goal is a fraction of the baseline's req/s. */
export interface Scenario {
  readonly name: string;
  readonly goal?: number;
  /** When set, `goal` is a share of that scenario's req/s instead of the baseline's. */
  readonly goalRelativeTo?: string;
  run(): Promise<{ figures: Figures; note?: string }>;
}

export const scenarios: Scenario[] = [
  {
    name: 'healthz (no database)',
    async run() {
      const server = await startLectern();
      try {
        return { figures: await measure({ url: `${server.url}/healthz` }) };
      } finally {
        await server.stop();
      }
    },
  },
  ...oauthScenarios,
  ...accountScenarios,
  ...mcpScenarios,
  ...floorScenarios,
];
