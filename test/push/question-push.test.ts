/**
 * A push for an agent's question says the question (docs/messages.md): an AskUserQuestion approval
 * opened as the `--ask` hook opens it (through the service, on a real hub) sets attention `question`
 * with the question's text, and the push a subscribed browser gets (decrypted by a push service on
 * loopback) carries that text.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApproval } from '../../hub/people/approvals.js';
import { subscribePush } from '../../hub/services/push.js';
import { hashToken, tokenIdOf } from '../../hub/services/tokens.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { closePushServicesAfterEach, startPushService } from './push-service.js';

let hub: TestHub;
let runner: RunnerSocket;
closePushServicesAfterEach();
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
}, () => ({ config: { pushPollMs: 20, pushRetryMs: 50 } }));

const ASK = JSON.parse(readFileSync(resolve(import.meta.dirname, '../hook/fixtures/messages/claude-pre-tool-use-ask-user-question.json'), 'utf8')) as { payload: { tool_input: never } };

describe('a question push', () => {
  it('says the question', async () => {
    const service = await startPushService();
    const browser = service.subscribe();
    await subscribePush(hub.deps.store, { endpoint: browser.endpoint, ...browser.keys, namespace: 'default', tokenId: tokenIdOf(hashToken(hub.tokens.dashboard)), now: Date.now() });
    const { sid } = await startSession(runner, { metadata: { path: '/work/app', title: 'Snapshots' } });
    await openApproval(hub.deps, { namespace: 'default', role: 'runner', by: 'runner' }, { sid, tool: 'AskUserQuestion', input: ASK.payload.tool_input });
    await waitFor(() => service.pushes.length === 1, 5000, 'the question push');
    expect(service.pushes[0]!.payload).toMatchObject({ kind: 'question', sid });
    expect(service.pushes[0]!.payload.body).toContain('Should I also update the snapshots?');
  });
});
