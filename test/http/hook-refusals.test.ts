/**
 * Issue 34 point 6: hook deliveries refused for their token show hub-side, rate-limited: one
 * recorded report per presented token and address per minute (its count kept), read by admins over
 * HTTP and by `doctor` (the real CLI process on the hub's data directory).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { waitFor } from '../helpers/clients.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

const hookPost = (token: string) =>
  fetch(`${hub.url}/api/hooks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"events":[]}' });

async function refusals(): Promise<{ tokenId: string; status: number; count: number; message: string }[]> {
  const response = await fetch(`${hub.url}/api/hook-refusals`, { headers: { authorization: `Bearer ${hub.tokens.admin}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { refusals: { tokenId: string; status: number; count: number; message: string }[] }).refusals;
}

describe('refused hook deliveries, hub-side', () => {
  it('are reported once a minute per token and address, to admins and to doctor', async () => {
    for (let i = 0; i < 5; i++) expect((await hookPost('a-wrong-token-0001')).status).toBe(401);
    expect((await hookPost(hub.tokens.dashboard)).status).toBe(403);
    await waitFor(async () => (await refusals()).length === 2, 3000, 'the recorded refusals');
    const [dashboard, wrong] = [...(await refusals())].sort((a, b) => a.status - b.status).reverse();
    // the first of a minute is written at once; the four after it wait for the next minute's report
    expect(wrong).toMatchObject({ status: 401, count: 1, message: 'a valid token is required: Authorization: Bearer <token>' });
    expect(dashboard).toMatchObject({ status: 403, count: 1 });
    expect(JSON.stringify(await refusals())).not.toContain('a-wrong-token-0001');

    // people's tokens cannot read it
    expect((await fetch(`${hub.url}/api/hook-refusals`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } })).status).toBe(403);

    const doctor = await runCli(['doctor', '--data', hub.dataDir], { env: { SESSION_HUB_SPOOL_DIR: `${hub.dataDir}/no-spool` } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('Hook deliveries this hub refused (2 in the last 24 h)');
    expect(doctor.stdout).toContain(`token ${wrong!.tokenId}  from 127.0.0.1  1x  401`);
  });
});
