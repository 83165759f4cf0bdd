import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startPgRelay } from '../helpers/pg-relay.js';
import { twoHubsAfterEach, runnerOn, startTwoHubs } from './two-hubs.js';

/**
 * A TCP relay in front of PostgreSQL for process A alone. Armed with a tenant's name, it lets the
 * first message naming that tenant through (the transaction's BEGIN, locks and reads: the server
 * takes the locks) and holds everything that connection sends after it (the transaction's writes and
 * COMMIT): tenant A's write transaction stays open on the server, as a slow or stalled process would
 * leave it. `release()` sends the rest on.
 */
async function startHoldingRelay(databaseUrl: string) {
  let armedFor: string | undefined;
  const holds: { upstream: Socket; chunks: Buffer[]; released: boolean }[] = [];
  const relay = await startPgRelay(databaseUrl, (client, upstream) => {
    let hold: { upstream: Socket; chunks: Buffer[]; released: boolean } | undefined;
    let holdNext = false;
    client.on('data', (chunk: Buffer) => {
      if (hold && !hold.released) return void hold.chunks.push(chunk);
      if (holdNext) {
        holdNext = false;
        holds.push((hold = { upstream, chunks: [chunk], released: false }));
        return;
      }
      upstream.write(chunk);
      if (armedFor !== undefined && chunk.includes(armedFor)) {
        armedFor = undefined;
        holdNext = true;
      }
    });
    client.on('close', () => upstream.destroy());
  });
  return {
    ...relay,
    holdAfter: (text: string) => void (armedFor = text),
    holding: () => holds.some((hold) => !hold.released),
    release: () => {
      for (const hold of holds) {
        hold.released = true;
        for (const chunk of hold.chunks.splice(0)) hold.upstream.write(chunk);
      }
    },
  };
}

twoHubsAfterEach();
let relay: Awaited<ReturnType<typeof startHoldingRelay>> | undefined;
afterEach(async () => {
  relay?.release();
  await relay?.close();
  relay = undefined;
});

const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('tenants write in parallel across processes (issue 25)', () => {
  it("while tenant A's write transaction is held open on process A, tenant B's writes on process B are acknowledged; tenant A's wait", async () => {
    const suffix = randomBytes(4).toString('hex');
    const tenantA = `tenant-a-${suffix}`;
    const tenantB = `tenant-b-${suffix}`;
    const tokens = { a: `runner-a-${suffix}`, b: `runner-b-${suffix}` };
    const env = {
      SESSION_HUB_TOKENS: `runner:${tenantA}:${tokens.a},runner:${tenantB}:${tokens.b}`,
      // no sweep during the test: an all-namespaces transaction waits for every open one (docs/scale-out.md)
      SESSION_HUB_SWEEP_MS: '600000',
    };
    const { a, b } = await startTwoHubs(env, async (databaseUrl) => {
      relay = await startHoldingRelay(databaseUrl);
      return { SESSION_HUB_DATABASE_URL: relay.url };
    });
    const writerA = await runnerOn(a, tokens.a);
    const otherA = await runnerOn(b, tokens.a);
    const writerB = await runnerOn(b, tokens.b);
    const sidA = (await writerA.startSession({ tag: `a-${suffix}`, flavor: 'claude', source: 'startup', metadata: { path: '/a' } })).session.sid;
    const sidA2 = (await otherA.startSession({ tag: `a2-${suffix}`, flavor: 'claude', source: 'startup', metadata: { path: '/a2' } })).session.sid;
    const sidB = (await writerB.startSession({ tag: `b-${suffix}`, flavor: 'claude', source: 'startup', metadata: { path: '/b' } })).session.sid;

    // tenant A's write on process A: its transaction takes its locks, then everything after is held
    relay!.holdAfter(sidA);
    const heldWrite = writerA.updateMetadata(sidA, { patch: { step: 1 } }).catch((error: unknown) => error);
    await expect.poll(() => relay!.holding(), { timeout: 10_000 }).toBe(true);

    // tenant B on process B: acknowledged while A's transaction stays open
    // (within 10 s: with one lock for the whole cluster they would wait for the server's 30 s idle timeout to end A's transaction)
    const writesOfB = (async () => {
      for (let step = 1; step <= 5; step++) {
        expect(await writerB.updateMetadata(sidB, { patch: { step } })).toMatchObject({ version: step + 1 });
      }
    })();
    expect(await settledWithin(writesOfB, 10_000)).toBe(true);
    await writesOfB;
    // tenant A on process B: its writes wait for tenant A's open transaction (section 5's order)
    const waitingWrite = otherA.updateMetadata(sidA2, { patch: { step: 1 } });
    expect(await settledWithin(waitingWrite, 1500)).toBe(false);
    expect(await settledWithin(heldWrite, 10)).toBe(false);

    relay!.release();
    expect(await waitingWrite).toMatchObject({ version: 2 });
    expect(await heldWrite).toMatchObject({ version: 2 });
  }, 90_000);
});
