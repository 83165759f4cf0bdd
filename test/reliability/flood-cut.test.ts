/**
 * Spec section 12 and issue 18: a socket that keeps exceeding its rate limit is told once
 * (`rate_limited`) and disconnected, while another tenant keeps its acks; refusals name their limit
 * and /metrics counts them per limit; a fleet sharing one token is never refused by the token's ceiling.
 */
import { describe, expect, it } from 'vitest';
import { RunnerClient } from '../../shared/client/index.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { startTestHub, closeTestHubsAfterEach } from '../helpers/hub.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { sample, scrape } from './metrics-text.js';

stopHubsAfterEach();
closeTestHubsAfterEach();

/** Emits `session-alive` with an ack, 50 per 10 ms (5,000/s: 25 times the socket's limit), until the socket is cut; returns what it saw. */
function flood(socket: RunnerSocket, sid: string) {
  const errors: { code: string; message: string }[] = [];
  const ackMessages = new Set<string>();
  socket.on('error', (event) => errors.push(event));
  const timer = setInterval(() => {
    for (let i = 0; i < 50 && socket.connected; i++) {
      socket.emit('session-alive', { sid, time: Date.now() }, (ack) => {
        if (!ack.ok) ackMessages.add(ack.error.message);
      });
    }
  }, 10);
  const cut = new Promise<string>((resolve) => socket.once('disconnect', (reason) => {
    clearInterval(timer);
    resolve(reason);
  }));
  return { errors, ackMessages, cut };
}

/** A hub process with two tenants' runners, each with a session: one to flood, one to stay quiet. */
async function twoTenants() {
  const hub = await spawnHub();
  const flooder = await connectRunner(hub.url, hub.tokens.runner);
  const bystander = await connectRunner(hub.url, hub.tokens.otherRunner);
  return { hub, flooder, bystander, flooded: await startSession(flooder), quiet: await startSession(bystander) };
}

describe('a flooding socket', () => {
  it('is disconnected after one rate_limited error naming the cut, while another tenant keeps its acks; /metrics counts refusals per limit', async () => {
    const { hub, flooder, bystander, flooded, quiet } = await twoTenants();

    const seen = flood(flooder, flooded.sid);
    let bystanderAcks = 0;
    while (flooder.connected) {
      const ack = await bystander.emitWithAck('session-alive', { sid: quiet.sid, time: Date.now() });
      expect(ack).toEqual({ ok: true });
      bystanderAcks++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await seen.cut).toBe('io server disconnect');
    // every bystander event was acked ok during the flood (how fast is the business of bench/flood.ts)
    expect(bystanderAcks).toBeGreaterThan(0);
    // refusals before the cut named the per-socket limit; the cut came with exactly one error event
    expect([...seen.ackMessages]).toEqual([expect.stringContaining('rate limit exceeded: per socket (200 events/s, bursts to 400')]);
    expect(seen.errors).toEqual([{ code: 'rate_limited', message: expect.stringContaining('disconnected: this socket kept exceeding its rate limit'), event: 'session-alive' }]);
    expect(bystander.connected).toBe(true);

    const metrics = await scrape(hub.url);
    expect(sample(metrics, 'session_hub_rate_limited_total', { limit: 'socket' })).toBeGreaterThan(1000);
    expect(sample(metrics, 'session_hub_rate_limited_total', { limit: 'token' })).toBe(0);
    // one warning for the cut, no line per refused event
    expect(hub.output().match(/kept exceeding its rate limit/g)).toHaveLength(1);
    expect(hub.output()).not.toContain('event rejected');
  });

  it('does not hold up another client while the hub works through what it sent in one go', async () => {
    const { flooder, bystander, flooded, quiet } = await twoTenants();
    // 8,000 events written at once: they reach the hub as a few large TCP reads, most to be refused
    const BURST = 8000;
    let flooderAcks = 0;
    const allAnswered = new Promise<void>((resolve) => {
      for (let i = 0; i < BURST; i++) {
        flooder.emit('session-alive', { sid: flooded.sid, time: 0 }, () => {
          if (++flooderAcks === BURST) resolve();
        });
      }
    });
    // once the hub has begun answering the burst
    await waitFor(() => flooderAcks > 0, 5000, 'the first answer to the burst');
    const ack = await bystander.emitWithAck('session-alive', { sid: quiet.sid, time: Date.now() });
    const flooderAcksBefore = flooderAcks;
    await allAnswered;
    expect(ack).toEqual({ ok: true });
    // the hub hands on one frame of a read per turn of its event loop (fair-websocket-server.ts), so
    // the bystander's event is answered among the first of the burst, not after all of it
    expect(flooderAcksBefore).toBeLessThan(BURST / 2);
  });

  it('the SDK waits before reconnecting after such a cut (not at once)', async () => {
    const hub = await spawnHub();
    const client = await RunnerClient.connect({ url: hub.url, token: hub.tokens.runner, socketOptions: { reconnectionDelay: 50, reconnectionDelayMax: 2000, randomizationFactor: 0 } });
    const socket = client.socket as unknown as RunnerSocket;
    const session = await startSession(socket);
    const seen = flood(socket, session.sid);
    await seen.cut;
    const cutAt = Date.now();
    await waitFor(() => socket.connected, 10_000, 'the SDK to reconnect');
    // its own pace would have been 50 ms; after a cut for flooding it waits reconnectionDelayMax
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(1900);
    await client.close();
  });

  it('a fleet of 100 runners sharing one token at 10 events/s each is never refused (default limits)', async () => {
    const hub = await startTestHub();
    const runners = await Promise.all(Array.from({ length: 100 }, () => connectRunner(hub.url, hub.tokens.runner)));
    const sids = await Promise.all(runners.map(async (runner) => (await startSession(runner)).sid));
    const refused: string[] = [];
    for (let tick = 0; tick < 30; tick++) {
      const startedAt = Date.now();
      const acks = await Promise.all(runners.map((runner, i) => runner.emitWithAck('session-alive', { sid: sids[i]!, time: Date.now() })));
      for (const ack of acks) if (!ack.ok) refused.push(ack.error.code);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - startedAt))));
    }
    expect(refused).toEqual([]);
  });
});
