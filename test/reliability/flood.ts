/**
 * Shared parts of the crash tests: runners that flood one session each with metadata writes and
 * remember exactly which writes the hub acknowledged, followers that keep a cache from broadcasts
 * and replay, and the checks run against the restarted hub over HTTP.
 */
import { expect } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { RunnerSocket } from '../helpers/clients.js';

export interface Versioned {
  version: number;
  value: JsonObject;
}

export interface AckedWrite extends Versioned {
  sid: string;
}

/** Floods one session with patches until stopped or the socket drops; records every success ack. */
export class FloodWriter {
  readonly acked: AckedWrite[] = [];
  private counter = 0;

  constructor(
    readonly sid: string,
    readonly label: string,
    public cache: Versioned,
  ) {}

  /** Acks this writer got since `run` was last called. */
  ackedThisRun = 0;

  /** Writes until stopped or the socket drops (reset `ackedThisRun` before reconnecting). */
  async run(socket: RunnerSocket, stop: { stopped: boolean }): Promise<void> {
    while (!stop.stopped && socket.connected) {
      let ack;
      try {
        // a timeout-bound ack rejects at once when the hub dies mid-write: that write is not acknowledged
        ack = await socket.timeout(10_000).emitWithAck('update-metadata', {
          sid: this.sid,
          expectedVersion: this.cache.version,
          patch: { writer: this.label, counter: ++this.counter },
        });
      } catch {
        return;
      }
      if (ack.result === 'error') throw new Error(`write failed: ${ack.code} ${ack.message}`);
      this.cache = { version: ack.version, value: ack.metadata };
      if (ack.result === 'success') {
        this.acked.push({ sid: this.sid, version: ack.version, value: ack.metadata });
        this.ackedThisRun++;
      }
    }
  }
}

/** Keeps a session's metadata from `update` events (live or replayed) and every (seq, id) seen. */
export class Follower {
  cache: Versioned;
  maxSeq = 0;
  resyncs = 0;

  constructor(
    readonly sid: string,
    initial: Versioned,
    private readonly seen: SeqLedger,
  ) {
    this.cache = initial;
  }

  attach(socket: RunnerSocket): void {
    socket.on('update', (event) => this.onUpdate(event));
    socket.on('resync', () => this.resyncs++);
  }

  apply(snapshot: Versioned): void {
    if (snapshot.version > this.cache.version) this.cache = snapshot;
  }

  private onUpdate(event: UpdateEvent): void {
    this.seen.record(event);
    this.maxSeq = Math.max(this.maxSeq, event.seq);
    if (event.body.t === 'update-session' && event.body.sid === this.sid && event.body.metadata) this.apply(event.body.metadata);
  }
}

/** Every (seq, id) any client saw: a seq is never reused if it always maps to the same id. */
export class SeqLedger {
  readonly idBySeq = new Map<number, string>();
  readonly reused: string[] = [];

  record(event: UpdateEvent): void {
    const known = this.idBySeq.get(event.seq);
    if (known !== undefined && known !== event.id) this.reused.push(`seq ${event.seq}: ${known} then ${event.id}`);
    this.idBySeq.set(event.seq, event.id);
  }

  maxSeq(): number {
    return Math.max(0, ...this.idBySeq.keys());
  }
}

export async function getJson<T>(url: string, token: string): Promise<T> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** Every acknowledged write is in the database: its version, with its value, in the history. */
export async function expectAckedWritesStored(hubUrl: string, token: string, writers: readonly FloodWriter[]): Promise<number> {
  let checked = 0;
  for (const writer of writers) {
    const snapshot = await getJson<{ metadata: Versioned }>(`${hubUrl}/api/sessions/${writer.sid}`, token);
    const { history } = await getJson<{ history: { version: number; metadata: JsonObject }[] }>(`${hubUrl}/api/sessions/${writer.sid}/history`, token);
    const byVersion = new Map(history.map((row) => [row.version, row.metadata]));
    const last = writer.acked.at(-1);
    if (last) expect(snapshot.metadata.version).toBeGreaterThanOrEqual(last.version);
    for (const write of writer.acked) {
      expect(byVersion.get(write.version), `${writer.sid} v${write.version}`).toEqual(write.value);
      checked++;
    }
    // versions rise by exactly one per accepted write: no hole where a write vanished
    expect(history.map((row) => row.version)).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
    expect(history.length).toBe(snapshot.metadata.version);
  }
  return checked;
}
