/**
 * Spec section 5: a dashboard gets every event after its subscribe ack's seq, none lost, while other
 * writes commit during its subscribe. Writers keep several sessions busy while dashboards subscribe
 * one after another; afterwards each must hold every event of the namespace above its ack's seq.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
// writers as fast as they can go: the rate limit is not what this is about
useTestHub((started) => (hub = started), () => ({ config: { rateLimitPerSecond: 1e6, rateLimitBurst: 1e6, tokenRateLimitPerSecond: 1e6, tokenRateLimitBurst: 1e6 } }));

describe('subscribe while writes commit', () => {
  it('loses no live event above the ack seq', async () => {
    const writers = await Promise.all([0, 1, 2, 3].map(() => connectRunner(hub.url, hub.tokens.runner)));
    const sessions = await Promise.all(writers.map((w) => startSession(w)));
    let writing = true;
    const loops = writers.map(async (writer, i) => {
      let version = 1;
      while (writing) {
        const ack = await writer.emitWithAck('update-state', { sid: sessions[i]!.sid, expectedVersion: version, agentState: { version } });
        if (ack.result !== 'success') throw new Error(`write failed: ${JSON.stringify(ack)}`);
        version = ack.version;
      }
    });
    const watchers: { seq: number; seen: UpdateEvent[] }[] = [];
    for (let i = 0; i < 40; i++) {
      const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
      const seen = collectUpdates(dashboard);
      const ack = await dashboard.emitWithAck('subscribe', {});
      if (!ack.ok) throw new Error(ack.error.message);
      watchers.push({ seq: ack.seq, seen });
    }
    writing = false;
    await Promise.all(loops);
    const probe = await connectDashboard(hub.url, hub.tokens.dashboard);
    const last = await probe.emitWithAck('subscribe', {});
    if (!last.ok) throw new Error(last.error.message);
    for (const [i, watcher] of watchers.entries()) {
      const expected = Array.from({ length: last.seq - watcher.seq }, (_, k) => watcher.seq + 1 + k);
      await waitFor(() => watcher.seen.length >= expected.length, 5000, `watcher ${i}: ${expected.length} events`).catch(() => undefined);
      expect(watcher.seen.map((e) => e.seq), `watcher ${i} subscribed at ${watcher.seq}`).toEqual(expected);
    }
  });
});
