/**
 * Who takes a continued session's messages (docs/messages.md, "Who takes a message"; issue 45.5), on
 * a real hub with real Socket.IO peers: a session whose taker is a terminal's hook key, continued
 * from the page, hands its messages to the machine it was sent to, with a key only that machine was
 * given; a runner token naming the session with its own key, or the old taker's, takes nothing.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MachineSpawnPayload } from '../../shared/protocol/machines.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { connectMachine } from './machine-peer.js';

/** The agent's own session id: Claude Code's is a UUID (a Continue sends no other). */
const CLAUDE_ID = '8f3c2a61-4d5e-4f70-9a1b-2c3d4e5f6a7b';

let hub: TestHub;
useTestHub((started) => (hub = started));

const call = (method: string, path: string, body?: unknown) => httpCall(hub.url, method, path, { body });

const key = () => randomBytes(24).toString('base64url');

describe('a continue hands the session\'s messages to the machine it starts the agent on', () => {
  it('the machine presents the key it was sent and takes the messages; the old taker and another runner token take nothing', async () => {
    // started in a terminal: its first process registered the hooks' key
    const terminal = await connectRunner(hub.url, TEST_TOKENS.runner);
    const hookTaker = { key: key(), process: 'hook on the terminal' };
    const started = await startSession(terminal, { taker: hookTaker, metadata: { path: '/home/alice/code/api', host: 'laptop.local', claudeSessionId: CLAUDE_ID } });
    await terminal.emitWithAck('session-end', { sid: started.sid, reason: 'completed', status: 'success' });
    terminal.disconnect();

    const peer = await connectMachine(hub.url, TEST_TOKENS.machine);
    const offered: string[] = [];
    let spawned: MachineSpawnPayload | undefined;
    peer.onSpawn = async (spawn) => {
      spawned = spawn;
      const ack = await peer.socket.emitWithAck('session-start', {
        tag: CLAUDE_ID, flavor: 'claude', source: 'resume', sid: spawn.resume!.sid,
        metadata: { path: spawn.path, host: 'laptop.local', machineId: peer.register.machineId, drivenBy: 'machine' },
        taker: { key: spawn.resume!.takerKey!, process: 'the machine runner' },
      });
      expect(ack).toMatchObject({ ok: true });
      expect((ack as { takerRefused?: string }).takerRefused).toBeUndefined();
      return { ok: true, sid: spawn.resume!.sid };
    };
    peer.socket.on('message', (payload: { message: { text: string } }, ack: (answer: { ok: true }) => void) => {
      offered.push(payload.message.text);
      ack({ ok: true });
    });

    // another runner token, joining first with its own key: refused now, and after the continue
    const thief = await connectRunner(hub.url, TEST_TOKENS.runner);
    const stolen: string[] = [];
    thief.on('message', (payload: { message: { text: string } }) => stolen.push(payload.message.text));
    const before = await thief.emitWithAck('session-join', { sid: started.sid, taker: { key: key(), process: 'thief' } });
    expect(before).toMatchObject({ ok: true, takerRefused: expect.stringContaining('not this session\'s taker') });

    const continued = await call('POST', `/api/sessions/${started.sid}/continue`, { prompt: 'go on', policy: 'force' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(202);
    expect(spawned?.resume?.takerKey).toMatch(/^[A-Za-z0-9_-]{32,}$/);

    const sent = await call('POST', `/api/sessions/${started.sid}/messages`, { text: 'to the continued agent' });
    expect(sent.status).toBe(201);
    await waitFor(() => offered.includes('to the continued agent'), 5000, 'the machine is offered the message');

    const after = await thief.emitWithAck('session-join', { sid: started.sid, taker: { key: key(), process: 'thief' } });
    expect(after).toMatchObject({ ok: true, takerRefused: expect.stringContaining('not this session\'s taker') });
    // the terminal's old key no longer takes either: the person continued on the machine
    const old = await thief.emitWithAck('session-join', { sid: started.sid, taker: hookTaker });
    expect(old).toMatchObject({ ok: true, takerRefused: expect.stringContaining('not this session\'s taker') });
    expect(stolen).toEqual([]);
  });
});
