/**
 * The SDK and usage (docs/usage.md): `RunnerClient.stopTurn({ usage })` and `reportUsage`, and a
 * `DashboardClient` whose live snapshot takes the session's new totals from `turn` broadcasts and
 * matches GET /api/sessions/:sid.
 */
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { dashboardClient, getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

describe('usage through the SDK', () => {
  it('reports mid-turn and at the stop; a dashboard live map follows the totals and the last activity', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const dashboard = await dashboardClient(hub.url, hub.tokens.dashboard);
    const { session } = await runner.startSession({ tag: 'sdk-usage', flavor: 'claude', source: 'startup' });
    await dashboard.subscribe();
    const { sid } = session;
    const { turnId } = await runner.submitPrompt({ sid, prompt: 'count my tokens' });

    const mid = await runner.reportUsage({ sid, usage: [{ model: 'claude-haiku-4-5', inputTokens: 1_000_000, outputTokens: 0 }] });
    expect(mid).toMatchObject({ turnId, status: 'open', usage: [{ model: 'claude-haiku-4-5', inputTokens: 1_000_000, costUsd: 1 }] });
    await waitFor(() => dashboard.sessions.get(sid)?.usage.costUsd === 1, 3000, 'mid-turn totals on the dashboard');

    const closed = await runner.stopTurn({ sid, usage: [{ model: 'claude-haiku-4-5', inputTokens: 2_000_000, outputTokens: 200_000 }] });
    expect(closed).toMatchObject({ turnId, status: 'completed', usage: [{ inputTokens: 2_000_000, outputTokens: 200_000, costUsd: 3 }] });
    await waitFor(() => dashboard.sessions.get(sid)?.usage.costUsd === 3, 3000, 'closing totals on the dashboard');

    const fetched = await getJson<SessionSnapshot>(`${hub.url}/api/sessions/${sid}`, hub.tokens.dashboard);
    const held = dashboard.sessions.get(sid)!;
    expect(held.usage).toEqual(fetched.usage);
    expect(held.lastActivityAt).toBe(fetched.lastActivityAt);
    expect(held.currentTurn).toBeNull();
  });

  it('rejects a bad report with the hub error naming the field', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await runner.startSession({ tag: 'sdk-bad', flavor: 'claude', source: 'startup' });
    await expect(runner.reportUsage({ sid: session.sid, usage: [{ model: 'm', inputTokens: -5, outputTokens: 0 }] })).rejects.toThrow(/usage\.0\.inputTokens: must not be negative/);
  });
});
