import pino from 'pino';
import type { Config } from '../config.ts';
import { openRuntime, type Runtime } from '../runtime.ts';

/**
 * The runtime of a one-off command (migrate, seed, schools create…): no process metrics, no
 * client sync, and its log lines on standard error, so standard output holds only the command's
 * answer (one line a script can parse) while its security events still reach the log.
 */
export function openCommandRuntime(config: Config): Promise<Runtime> {
  return openRuntime(config, {
    processMetrics: false,
    syncClients: false,
    logDestination: pino.destination({ dest: 2, sync: true }),
  });
}
