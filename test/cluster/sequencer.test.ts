import { afterEach, describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { deliverToLocalSockets } from '../../hub/socket/publisher.js';
import { createSequencer, type ReadEventsSince, type Sequencer } from '../../hub/socket/sequencer.js';
import { rooms } from '../../hub/socket/rooms.js';
import type { OutgoingEvent } from '../../hub/services/deps.js';
import { waitFor } from '../helpers/clients.js';
import { closeClients, committed, joinRooms, memoryLog, silentLog, startSocketNode, type SocketNode } from './socket-node.js';

interface Delivered {
  namespace: string;
  seq: number;
  except: string | undefined;
}

const sequencers: Sequencer[] = [];
const nodes: SocketNode[] = [];

/** A sequencer whose deliveries are recorded in order. */
function recordingSequencer(
  readEventsSince: ReadEventsSince,
  options: { gapWaitMs?: number; maxHeldPerTenant?: number; readCommittedSeq?: (namespace: string) => Promise<number> } = {},
) {
  const delivered: Delivered[] = [];
  const sequencer = createSequencer({
    deliver: (outgoing: OutgoingEvent, except) => delivered.push({ namespace: outgoing.namespace, seq: outgoing.event.seq, except }),
    readEventsSince,
    log: silentLog,
    gapWaitMs: options.gapWaitMs ?? 10,
    maxHeldPerTenant: options.maxHeldPerTenant,
    readCommittedSeq: options.readCommittedSeq,
  });
  sequencers.push(sequencer);
  const seqs = (namespace = 't1') => delivered.filter((d) => d.namespace === namespace).map((d) => d.seq);
  return { sequencer, delivered, seqs };
}

/** Delivers tenant `t1`'s seq 1 and lets the first-events wait pass, so the next expected is 2. */
async function startedAtOne(sequencer: Sequencer, seqs: () => number[]) {
  sequencer.accept([committed('t1', 1)]);
  await waitFor(() => seqs().length === 1, 2000, 'seq 1');
}

afterEach(async () => {
  for (const sequencer of sequencers.splice(0)) sequencer.close();
  closeClients();
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

describe('sequencer', () => {
  // issue 26.4: a tenant's first events used to wait 25 ms, then delivery started at the lowest
  // heard of; a lower seq arriving later over Redis was dropped as delivered
  it('starts a tenant after the seq committed when its first socket connected: a lower seq arriving late is still delivered, in order', async () => {
    const log = memoryLog();
    for (let seq = 1; seq <= 3; seq++) log.append('t1', committed('t1', seq).event);
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince, {
      gapWaitMs: 10,
      readCommittedSeq: async () => Math.max(0, ...[...(await log.readEventsSince({ namespace: 't1', since: 0 }))].map((e) => e.seq)),
    });
    sequencer.watch('t1'); // a dashboard connects: 3 is committed
    await new Promise((resolve) => setTimeout(resolve, 20));
    // 4 (process A) and 5 (process B) commit; 5 arrives first, 4 only 100 ms later
    log.append('t1', committed('t1', 4).event);
    log.append('t1', committed('t1', 5).event);
    sequencer.accept([committed('t1', 5)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    sequencer.accept([committed('t1', 4)]);
    await waitFor(() => seqs().length === 2, 3000, 'seqs 4 and 5');
    expect(seqs()).toEqual([4, 5]);
  });

  it('without a socket watching, starts at the first event heard of at once (nobody is owed an earlier one)', async () => {
    const log = memoryLog();
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince, { gapWaitMs: 1000, readCommittedSeq: async () => 0 });
    sequencer.accept([committed('t1', 7)]);
    expect(seqs()).toEqual([7]);
    sequencer.accept([committed('t1', 8)]);
    expect(seqs()).toEqual([7, 8]);
  });

  it('delivers events that arrive out of order in seq order, without reading the log', async () => {
    const log = memoryLog();
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince);
    await startedAtOne(sequencer, seqs);

    sequencer.accept([committed('t1', 4)]);
    sequencer.accept([committed('t1', 3)]);
    sequencer.accept([committed('t1', 2)]);

    await waitFor(() => seqs().length === 4, 2000, 'seqs 2-4');
    expect(seqs()).toEqual([1, 2, 3, 4]);
    expect(log.reads).toEqual([]);
  });

  it('sorts the first events it sees: one committed just before the first arrival is not lost', async () => {
    const { sequencer, seqs } = recordingSequencer(memoryLog().readEventsSince, { gapWaitMs: 50 });
    sequencer.accept([committed('t1', 8)]);
    sequencer.accept([committed('t1', 7)]);
    sequencer.accept([committed('t1', 9)]);

    await waitFor(() => seqs().length === 3, 2000, 'seqs 7-9');
    expect(seqs()).toEqual([7, 8, 9]);
  });

  it('drops duplicates and events older than the last delivered', async () => {
    const { sequencer, seqs } = recordingSequencer(memoryLog().readEventsSince);
    await startedAtOne(sequencer, seqs);
    sequencer.accept([committed('t1', 2), committed('t1', 3)]);
    sequencer.accept([committed('t1', 2), committed('t1', 1), committed('t1', 3)]);
    sequencer.accept([committed('t1', 5)]);
    sequencer.accept([committed('t1', 5)]);
    sequencer.accept([committed('t1', 4)]);

    await waitFor(() => seqs().includes(5), 2000, 'seq 5');
    sequencer.accept([committed('t1', 6)]);
    await waitFor(() => seqs().includes(6), 2000, 'seq 6');
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads seqs that never arrive from the event log after the wait, then delivers the held ones', async () => {
    const log = memoryLog();
    for (let seq = 1; seq <= 5; seq += 1) log.append('t1', committed('t1', seq).event);
    const { sequencer, delivered, seqs } = recordingSequencer(log.readEventsSince);
    await startedAtOne(sequencer, seqs);

    sequencer.accept([committed('t1', 2)], 'writer-2');
    // 3 and 4 were committed by a process that died before publishing them
    sequencer.accept([committed('t1', 5)], 'writer-5');

    await waitFor(() => seqs().length === 5, 2000, 'seqs 3-5');
    expect(seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(log.reads).toEqual([{ namespace: 't1', since: 2 }]);
    // the held copy of 5 keeps its writer to skip; the log's 3 and 4 have none
    expect(delivered.map((d) => d.except)).toEqual([undefined, 'writer-2', undefined, undefined, 'writer-5']);
  });

  it('catches up on a tail that was committed but never published, without waiting for a next event', async () => {
    const log = memoryLog();
    for (let seq = 1; seq <= 4; seq += 1) log.append('t1', committed('t1', seq).event);
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince);
    await startedAtOne(sequencer, seqs);
    sequencer.accept([committed('t1', 2)]);
    await waitFor(() => seqs().length === 2, 2000, 'seq 2');

    // 3 and 4 never arrive (the committing process lost Redis) and the tenant goes quiet
    sequencer.catchUp();
    await waitFor(() => seqs().length === 4, 2000, 'seqs 3 and 4 from the log');
    expect(seqs()).toEqual([1, 2, 3, 4]);
    expect(log.reads).toEqual([{ namespace: 't1', since: 2 }]);

    // nothing new in the log: a catch-up delivers nothing twice; a late copy of 4 is dropped
    sequencer.catchUp();
    sequencer.accept([committed('t1', 4)]);
    await waitFor(() => log.reads.length === 2, 2000, 'the second read');
    expect(seqs()).toEqual([1, 2, 3, 4]);
  });

  it('delivers past a seq the log does not have, rather than waiting for ever', async () => {
    const log = memoryLog();
    for (const seq of [1, 2, 4]) log.append('t1', committed('t1', seq).event);
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince);
    await startedAtOne(sequencer, seqs);

    sequencer.accept([committed('t1', 4)]);
    await waitFor(() => seqs().includes(4), 2000, 'seq 4');
    sequencer.accept([committed('t1', 5)]);
    await waitFor(() => seqs().includes(5), 2000, 'seq 5');
    expect(seqs()).toEqual([1, 2, 4, 5]);
  });

  it('keeps tenants apart: one waiting on the log does not hold up another', async () => {
    const log = memoryLog();
    for (let seq = 1; seq <= 3; seq += 1) log.append('t1', committed('t1', seq).event);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowForT1: ReadEventsSince = async (input) => {
      if (input.namespace === 't1') await gate;
      return log.readEventsSince(input);
    };
    const { sequencer, seqs } = recordingSequencer(slowForT1);
    await startedAtOne(sequencer, seqs);
    sequencer.accept([committed('t1', 3)]); // 2 is missing: t1 reads the log, which hangs

    sequencer.accept([committed('t2', 40)]);
    await waitFor(() => seqs('t2').length === 1, 2000, 't2 first');
    sequencer.accept([committed('t2', 42)]);
    sequencer.accept([committed('t2', 41)]);
    await waitFor(() => seqs('t2').length === 3, 2000, 't2 rest');
    expect(seqs('t2')).toEqual([40, 41, 42]);
    expect(seqs('t1')).toEqual([1]);

    release();
    await waitFor(() => seqs('t1').length === 3, 2000, 't1 after the log read');
    expect(seqs('t1')).toEqual([1, 2, 3]);
  });

  it('reads the log at once, without waiting, when more events are held than allowed', async () => {
    const log = memoryLog();
    for (let seq = 1; seq <= 6; seq += 1) log.append('t1', committed('t1', seq).event);
    // a wait far longer than the test: only the bound can trigger the read
    const { sequencer, seqs } = recordingSequencer(log.readEventsSince, { gapWaitMs: 60_000, maxHeldPerTenant: 3 });
    sequencer.accept([committed('t1', 1)]);
    sequencer.accept([committed('t1', 2)]);
    sequencer.accept([committed('t1', 3)]);
    await waitFor(() => seqs().length === 3, 2000, 'the first three');

    for (const seq of [5, 6, 7]) sequencer.accept([committed('t1', seq)]);
    await waitFor(() => seqs().length === 7, 2000, 'read past the bound');
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('skips the gap and goes on when the log cannot be read', async () => {
    const failing: ReadEventsSince = async () => {
      throw new Error('database is down');
    };
    const { sequencer, seqs } = recordingSequencer(failing);
    await startedAtOne(sequencer, seqs);
    sequencer.accept([committed('t1', 3)]);
    await waitFor(() => seqs().includes(3), 2000, 'seq 3');
    sequencer.accept([committed('t1', 4)]);
    await waitFor(() => seqs().includes(4), 2000, 'seq 4');
    expect(seqs()).toEqual([1, 3, 4]);
  });

  it('honours exceptSocketId when delivering to real sockets, for runners only', async () => {
    const node = await startSocketNode();
    nodes.push(node);
    const sequencer = createSequencer({
      deliver: (outgoing, except) => deliverToLocalSockets(node, outgoing, except),
      readEventsSince: memoryLog().readEventsSince,
      log: silentLog,
      gapWaitMs: 10,
    });
    sequencers.push(sequencer);
    const writer = await joinRooms(node.url, '/runner', [rooms.session('s1')]);
    const other = await joinRooms(node.url, '/runner', [rooms.session('s1')]);
    const dashboard = await joinRooms(node.url, '/dashboard', [rooms.namespace('t1')]);

    sequencer.accept([committed('t1', 1)], writer.socket.id);
    sequencer.accept([committed('t1', 2)]);

    const seqsOf = (updates: UpdateEvent[]) => updates.map((e) => e.seq);
    await waitFor(() => writer.updates.length === 1 && other.updates.length === 2 && dashboard.updates.length === 2, 2000, 'updates');
    expect(seqsOf(writer.updates)).toEqual([2]);
    expect(seqsOf(other.updates)).toEqual([1, 2]);
    expect(seqsOf(dashboard.updates)).toEqual([1, 2]);
  });
});
