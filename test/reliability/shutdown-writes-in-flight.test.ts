import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WRITES = 40;

/**
 * A stop while writes are in flight: a client that got a success ack must find its write stored, and
 * a write the client never got an answer for must not be stored (without a requestId its retry would
 * meet version-mismatch against its own write).
 */
describe('shutdown with writes in flight', () => {
  it('every acked write is stored and every stored write was acked', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-shutdown-writes-'));
    dirs.push(dataDir);
    const hub = await startTestHub({ dataDir });
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const sids: string[] = [];
    for (let i = 0; i < WRITES; i += 1) sids.push((await startSession(runner, { tag: `w${i}` })).sid);

    const acked = new Map<string, number>();
    let firstAck!: () => void;
    const oneAcked = new Promise<void>((resolve) => (firstAck = resolve));
    for (const [i, sid] of sids.entries()) {
      runner.emit('update-state', { sid, expectedVersion: 1, agentState: { n: i } }, (ack) => {
        if (ack.result === 'success') acked.set(sid, ack.version);
        firstAck();
      });
    }
    await oneAcked;
    await hub.close();

    const restarted = await startTestHub({ dataDir });
    const stored = new Map<string, number>();
    for (const sid of sids) {
      const response = await fetch(`${restarted.url}/api/sessions/${sid}`, { headers: { authorization: `Bearer ${restarted.tokens.runner}` } });
      const body = (await response.json()) as { agentState: { version: number } };
      if (body.agentState.version === 2) stored.set(sid, 2);
    }
    expect(acked.size).toBeGreaterThan(0);
    // both directions: acked ⇒ stored, stored ⇒ acked
    expect(new Map([...stored].filter(([sid]) => !acked.has(sid)))).toEqual(new Map());
    expect(new Map([...acked].filter(([sid]) => !stored.has(sid)))).toEqual(new Map());
  });
});
