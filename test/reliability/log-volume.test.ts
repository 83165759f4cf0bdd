import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** The hub's JSON log lines so far, parsed (non-JSON lines skipped). */
function logLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('log volume of a long-running hub (LOG_LEVEL=info)', () => {
  it('probes and scrapes log nothing at info; a refused API request is logged with its status, its query token redacted', async () => {
    const hub = await spawnHub({ env: { LOG_LEVEL: 'info' } });
    // a liveness probe and a Prometheus scrape hit these every few seconds for months
    for (let i = 0; i < 20; i += 1) {
      expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${hub.url}/metrics`)).status).toBe(200);
    }
    const refused = await fetch(`${hub.url}/api/sessions?token=not-a-real-token-123`);
    expect(refused.status).toBe(401);
    await hub.stop();

    const lines = logLines(hub.output());
    const mentioning = (path: string) => lines.filter((line) => JSON.stringify(line).includes(path));
    expect(mentioning('/healthz')).toEqual([]);
    expect(mentioning('/metrics')).toEqual([]);
    // the API's requests are logged (incoming, then completed with its status)
    expect(mentioning('/api/sessions').length).toBeGreaterThan(0);
    expect(lines.some((line) => (line.res as { statusCode?: number } | undefined)?.statusCode === 401)).toBe(true);
    expect(hub.output()).not.toContain('not-a-real-token-123');
  });
});
