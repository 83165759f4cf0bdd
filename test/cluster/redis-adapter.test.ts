import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { createAdapter } from '@socket.io/redis-adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { attachRedisAdapter, type RedisAdapterHandle } from '../../hub/cluster/redis-adapter.js';
import { createClusterPublisher, type ClusterPublisher } from '../../hub/socket/cluster-publisher.js';
import { rooms } from '../../hub/socket/rooms.js';
import { waitFor } from '../helpers/clients.js';
import { testRedisUrl } from '../helpers/redis.js';
import { closeClients, committed, joinRooms, memoryLog, silentLog, startSocketNode, type SocketNode } from './socket-node.js';

interface ClusterNode {
  node: SocketNode;
  publisher: ClusterPublisher;
  redis: RedisAdapterHandle;
}

const started: ClusterNode[] = [];

/**
 * Two Socket.IO servers sharing Redis under a channel prefix of their own (so parallel tests on the
 * same Redis never hear each other), each with a cluster publisher over one shared event log.
 */
async function startCluster(count: number, key = `session-hub-test-${randomUUID()}`, options: { log?: ReturnType<typeof memoryLog>; peersPollMs?: number } = {}) {
  const log = options.log ?? memoryLog();
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < count; i += 1) {
    const node = await startSocketNode();
    const redis = await attachRedisAdapter(node.io, testRedisUrl(), silentLog, { key });
    const publisher = createClusterPublisher({ ...node, log: silentLog, readEventsSince: log.readEventsSince, gapWaitMs: 25, peersPollMs: options.peersPollMs });
    const member = { node, publisher, redis };
    started.push(member);
    nodes.push(member);
  }
  return { nodes, log };
}

afterEach(async () => {
  closeClients();
  for (const { node, publisher, redis } of started.splice(0)) {
    publisher.close();
    await node.close();
    await redis.close();
  }
});

const seqsOf = (updates: UpdateEvent[]) => updates.map((e) => e.seq);

/**
 * Counts the committed batches of a tenant that cross Redis on the cluster's request channel, through
 * a pattern subscription (which Redis does not count as a listener of the channel: PUBSUB NUMSUB).
 */
async function countBatches(key: string, tenant: string) {
  const listener = new Redis(testRedisUrl());
  let count = 0;
  const seqs: number[] = [];
  await listener.psubscribe(`${key}*`);
  listener.on('pmessage', (_pattern, channel: string, message: string) => {
    if (!channel.includes('-request#') || !message.includes(tenant)) return;
    count += 1;
    for (const [, seq] of message.matchAll(/"seq":(\d+)/g)) seqs.push(Number(seq));
  });
  return { batches: () => count, seqs: () => seqs, close: () => listener.disconnect() };
}

describe('broadcasts across processes (Redis adapter)', () => {
  it('an event published on one server reaches clients there and on the other, in order, skipping only the writer', async () => {
    const { nodes, log } = await startCluster(2);
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const tenant = `t-${randomUUID()}`;
    const writer = await joinRooms(a.node.url, '/runner', [rooms.session('s1')]);
    const localDashboard = await joinRooms(a.node.url, '/dashboard', [rooms.namespace(tenant)]);
    const remoteRunner = await joinRooms(b.node.url, '/runner', [rooms.session('s1')]);
    const remoteWatcher = await joinRooms(b.node.url, '/dashboard', [rooms.sessionWatchers('s1')]);

    for (let seq = 1; seq <= 3; seq += 1) {
      const event = committed(tenant, seq);
      log.append(tenant, event.event);
      a.publisher.publish([event], seq === 1 ? { exceptSocketId: writer.socket.id } : {});
    }

    const all = [writer, localDashboard, remoteRunner, remoteWatcher];
    await waitFor(() => writer.updates.length === 2 && all.slice(1).every((c) => c.updates.length === 3), 5000, 'updates on both servers');
    expect(seqsOf(writer.updates)).toEqual([2, 3]);
    for (const client of all.slice(1)) expect(seqsOf(client.updates)).toEqual([1, 2, 3]);
    expect(remoteRunner.updates[0]).toEqual(committed(tenant, 1).event);
  });

  it('a burst of interleaved publishes from both servers arrives in seq order everywhere, a never-published seq included', async () => {
    const { nodes, log } = await startCluster(2);
    const tenant = `t-${randomUUID()}`;
    const clients: Awaited<ReturnType<typeof joinRooms>>[] = [];
    for (const { node } of nodes) {
      clients.push(await joinRooms(node.url, '/runner', [rooms.session('s1')]));
      clients.push(await joinRooms(node.url, '/dashboard', [rooms.namespace(tenant)]));
    }

    const total = 300;
    const lost = 150; // committed by a process killed before it published
    for (let seq = 1; seq <= total; seq += 1) {
      // commits happen in seq order (one cluster-wide lock); whichever process made one publishes it
      const event = committed(tenant, seq);
      log.append(tenant, event.event);
      if (seq === lost) continue;
      const publisher = nodes[Math.random() < 0.5 ? 0 : 1]!.publisher;
      publisher.publish([event]);
      if (seq % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
    }

    const expected = Array.from({ length: total }, (_, i) => i + 1);
    await waitFor(() => clients.every((c) => c.updates.length >= total), 10_000, 'every update on every client');
    for (const client of clients) expect(seqsOf(client.updates)).toEqual(expected);
  });

  it('the events a batch publishes in one turn go to the other processes in one Redis message', async () => {
    const key = `session-hub-test-${randomUUID()}`;
    // counts what crosses Redis on the cluster's channels (the request channel carries serverSideEmit)
    const listener = new Redis(testRedisUrl());
    const messages: string[] = [];
    try {
      await listener.psubscribe(`${key}*`);
      listener.on('pmessage', (_pattern, channel: string) => messages.push(channel));
      const { nodes, log } = await startCluster(2, key);
      const [a, b] = nodes as [ClusterNode, ClusterNode];
      const tenant = `t-${randomUUID()}`;
      const writers = [
        await joinRooms(a.node.url, '/runner', [rooms.session('s1')]),
        await joinRooms(a.node.url, '/runner', [rooms.session('s1')]),
      ];
      const remote = await joinRooms(b.node.url, '/dashboard', [rooms.namespace(tenant)]);
      messages.length = 0;

      // group commit publishes each write of a committed batch in one turn, each skipping its writer
      for (let seq = 1; seq <= 4; seq += 1) {
        const event = committed(tenant, seq);
        log.append(tenant, event.event);
        a.publisher.publish([event], { exceptSocketId: writers[seq % 2]!.socket.id });
      }

      await waitFor(() => remote.updates.length === 4 && writers.every((w) => w.updates.length === 2), 5000, 'every update');
      expect(seqsOf(remote.updates)).toEqual([1, 2, 3, 4]);
      expect(seqsOf(writers[0]!.updates)).toEqual([1, 3]);
      expect(seqsOf(writers[1]!.updates)).toEqual([2, 4]);
      expect(messages.filter((channel) => channel.includes('-request#'))).toHaveLength(1);
    } finally {
      listener.disconnect();
    }
  });

  it('a process does not parse its own batch; a process on the plain adapter (an earlier hub) hears it and is heard', async () => {
    const key = `session-hub-test-${randomUUID()}`;
    const { nodes, log } = await startCluster(1, key);
    const a = nodes[0]!;
    // B: Socket.IO on the library's adapter as hubs before this change used it (same messages)
    const b = await startSocketNode();
    const [pub, sub] = [new Redis(testRedisUrl()), new Redis(testRedisUrl())];
    b.io.adapter(createAdapter(pub, sub, { key }));
    await sub.ping();
    const bPublisher = createClusterPublisher({ ...b, log: silentLog, readEventsSince: log.readEventsSince, gapWaitMs: 25 });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const tenant = `t-${randomUUID()}`;
      const onA = await joinRooms(a.node.url, '/dashboard', [rooms.namespace(tenant)]);
      const onB = await joinRooms(b.url, '/dashboard', [rooms.namespace(tenant)]);
      // the adapter's requests as parsed in this test process (both servers run here)
      const parsedBatches = () => parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('{"uid":"') && text.includes(tenant)).length;

      for (const [seq, publisher] of [[1, a.publisher], [2, bPublisher], [3, a.publisher]] as const) {
        const event = committed(tenant, seq);
        log.append(tenant, event.event);
        publisher.publish([event]);
        await waitFor(() => onA.updates.length === seq && onB.updates.length === seq, 5000, `seq ${seq} on both servers`);
      }
      expect(seqsOf(onA.updates)).toEqual([1, 2, 3]);
      expect(seqsOf(onB.updates)).toEqual([1, 2, 3]);
      // A's two batches parsed once each (by B); B's parsed by A, and by B itself (the plain adapter)
      expect(parsedBatches()).toBe(2 + 2);
    } finally {
      parse.mockRestore();
      bPublisher.close();
      await b.close();
      pub.disconnect();
      sub.disconnect();
    }
  });

  it('a process alone on Redis sends its batches to nobody; a process that says hello is sent every later one at once', async () => {
    const key = `session-hub-test-${randomUUID()}`;
    const tenant = `t-${randomUUID()}`;
    const { batches, seqs, close } = await countBatches(key, tenant);
    try {
      // no count after the first (at start): only the newcomer's hello can tell A it has company
      const { nodes, log } = await startCluster(1, key, { peersPollMs: 60_000 });
      const a = nodes[0]!;
      const publish = (seq: number) => {
        const event = committed(tenant, seq);
        log.append(tenant, event.event);
        a.publisher.publish([event]);
      };
      await new Promise((resolve) => setTimeout(resolve, 300));
      publish(1);
      publish(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(batches()).toBe(0);

      const b = (await startCluster(1, key, { log, peersPollMs: 60_000 })).nodes[0]!;
      const onB = await joinRooms(b.node.url, '/dashboard', [rooms.namespace(tenant)]);
      // the hello crosses Redis while B's dashboard connects; from the first seq B hears, it hears all
      let seq = 2;
      await waitFor(() => {
        if (onB.updates.length === 0) publish((seq += 1));
        return onB.updates.length > 0;
      }, 5000, 'a batch from A on B after its hello');
      const first = onB.updates[0]!.seq;
      for (let i = 0; i < 5; i += 1) publish((seq += 1));
      await waitFor(() => onB.updates.at(-1)?.seq === seq, 5000, `seq ${seq} on B`);
      expect(seqsOf(onB.updates)).toEqual(Array.from({ length: seq - first + 1 }, (_, i) => first + i));
      expect(first).toBeLessThanOrEqual(4);
      // what crossed Redis is exactly what B got: nothing from before its hello
      expect(seqs()).toEqual(seqsOf(onB.updates));
    } finally {
      close();
    }
  });

  it('a process that never says hello (an earlier hub) is found by counting; once it has gone, batches stop', async () => {
    const key = `session-hub-test-${randomUUID()}`;
    const tenant = `t-${randomUUID()}`;
    const { batches, close } = await countBatches(key, tenant);
    const { nodes, log } = await startCluster(1, key, { peersPollMs: 50 });
    const a = nodes[0]!;
    let seq = 0;
    const publish = () => {
      const event = committed(tenant, (seq += 1));
      log.append(tenant, event.event);
      a.publisher.publish([event]);
    };
    const b = await startSocketNode();
    const [pub, sub] = [new Redis(testRedisUrl()), new Redis(testRedisUrl())];
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      publish();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(batches()).toBe(0);

      // B on the library's plain adapter, as hubs before the hello: it only subscribes
      b.io.adapter(createAdapter(pub, sub, { key }));
      await sub.ping();
      await waitFor(() => {
        publish();
        return batches() > 0;
      }, 5000, 'a batch sent once B is counted');

      await b.close();
      sub.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = batches();
      publish();
      publish();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(batches()).toBe(sent);
    } finally {
      pub.disconnect();
      sub.disconnect();
      close();
    }
  });

  it('fails at start with a clear error, without the password, when Redis cannot be reached', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const node = await startSocketNode();
    try {
      const attempt = attachRedisAdapter(node.io, `redis://hub:hunter2@127.0.0.1:${closedPort}`, silentLog);
      const error = await attempt.then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.message).toMatch(new RegExp(`^cannot reach Redis at redis://127\\.0\\.0\\.1:${closedPort}: .*ECONNREFUSED`));
      expect(error?.message).not.toContain('hunter2');
    } finally {
      await node.close();
    }
  });
});
