/**
 * The handshake's token is read as HTTP's Bearer token is: spaces or a line break around a pasted
 * token do not make it unknown; a blank one is still refused.
 */
import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, handshakeError, startSession } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

describe('handshake token', () => {
  it('takes a token with spaces or a newline around it, on both namespaces', async () => {
    const runner = await connectRunner(hub.url, ` ${TEST_TOKENS.runner}\n`);
    const session = await startSession(runner);
    expect(session.sid).toEqual(expect.any(String));
    const dashboard = await connectDashboard(hub.url, `\t${TEST_TOKENS.dashboard} `);
    expect(await dashboard.emitWithAck('subscribe', {})).toMatchObject({ ok: true });
  });

  it('still refuses a blank token and a token with anything else around it', async () => {
    expect(await handshakeError(hub.url, '/runner', { token: '   ' })).toBe('unauthorized');
    expect(await handshakeError(hub.url, '/runner', { token: `x${TEST_TOKENS.runner}` })).toBe('unauthorized');
  });
});
