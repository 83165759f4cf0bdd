/**
 * A reconnect's replay must leave the live map as the hub has it: the subscribe ack's snapshots
 * already include every replayed event (the hub reads both in one transaction), and re-applying a
 * replayed `session-created` or an old turn on top of them must not win (a closed turn open again,
 * the creation-time resume status back). Today socket.io delivers the replay before the ack's
 * promise continues, so the snapshots are applied last; this guards that outcome.
 */
import { expect, it, onTestFinished } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

it('does not roll the map back while a reconnect replays what it missed', async () => {
  const runner = await runnerClient(hub.url, hub.tokens.runner);
  // websocket only, as docs/sdk.md suggests behind a balancer without sticky sessions
  const dashboard = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard, requestTimeoutMs: 2000, socketOptions: { transports: ['websocket'] } });
  onTestFinished(() => dashboard.close());
  await dashboard.subscribe();
  const { session } = await runner.startSession({ tag: 'seen', flavor: 'claude', source: 'startup', metadata: { claudeSessionId: 'a' } });
  await waitFor(() => dashboard.sessions.has(session.sid), 3000, 'session-created');
  let reconnected = false;
  dashboard.on('reconnect', () => (reconnected = true));

  dashboard.socket.io.engine.close();
  // while away: a turn opens and closes; a session is created and then gets its resume token
  await runner.submitPrompt({ sid: session.sid, prompt: 'while away' });
  await runner.stopTurn({ sid: session.sid, response: 'done' });
  const { session: later } = await runner.startSession({ tag: 'created-while-away', flavor: 'claude', source: 'startup' });
  await runner.updateMetadata(later.sid, { patch: { claudeSessionId: 'b' } });

  const afterReconnect: SessionSnapshot[] = [];
  dashboard.on('session', (s) => reconnected && afterReconnect.push(s));
  await waitFor(() => reconnected, 5000, 'reconnect');
  // one live write after the replay: once it is in, the replay is over
  await runner.updateMetadata(session.sid, { patch: { marker: true } });
  await waitFor(() => dashboard.sessions.get(session.sid)?.metadata.value.marker === true, 5000, 'marker');

  const fetched = await getJson<SessionSnapshot>(`${hub.url}/api/sessions/${later.sid}`, hub.tokens.dashboard);
  expect(dashboard.sessions.get(later.sid)!.resume).toEqual(fetched.resume);
  expect(afterReconnect.filter((s) => s.sid === session.sid).map((s) => s.currentTurn?.prompt ?? null)).not.toContain('while away');
  expect(dashboard.sessions.get(later.sid)!.updatedAt).toBe(fetched.updatedAt);
});
