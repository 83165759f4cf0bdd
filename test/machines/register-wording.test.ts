/** machine-register refused to a token of another role names it with the right article ("an admin token"; issue 45.11). */
import { describe, expect, it } from 'vitest';
import { connectRunner } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

describe('machine-register with another role', () => {
  it.each([
    ['an admin', TEST_TOKENS.admin],
    ['a runner', TEST_TOKENS.runner],
  ])('says "this is %s token"', async (words, token) => {
    const socket = await connectRunner(hub.url, token);
    const answer = await socket.emitWithAck('machine-register', { machineId: `wording-${words.replace(' ', '-')}`, name: 'x', host: 'x', platform: 'linux', roots: ['/tmp'], agents: [] });
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringContaining(`this is ${words} token`) } });
  });
});
