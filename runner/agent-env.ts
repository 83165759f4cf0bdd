/**
 * The agent's environment, built explicitly: the runner's own, less everything of Session Hub's (the
 * machine token above all: an agent runs code a model chose), plus what the driver adds. The marker
 * tells our hook bridge, where the project also has the hooks installed, that the runner reports this
 * agent already (each turn once).
 */
import { RUNNER_DRIVEN_ENV } from '../shared/runner-driven.js';

export function agentEnv(own: NodeJS.ProcessEnv, secrets: readonly string[], extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(own)) {
    if (value === undefined || key.startsWith('SESSION_HUB_')) continue;
    // a secret copied under another name is still a secret
    if (secrets.some((secret) => secret.length > 0 && value.includes(secret))) continue;
    env[key] = value;
  }
  return { ...env, ...extra, [RUNNER_DRIVEN_ENV]: '1' };
}
