/**
 * Spec sections 2, 3 and 12, the statements no other suite pinned: `requestId` is idempotent per
 * session (the same id on another session is another request); a rejected write leaves no event-log
 * row; the 64 KiB document limit counts UTF-8 bytes of the JSON and admits exactly 64 KiB.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/protocol/limits.js';
import { connectDashboard, connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

/** The namespace's latest seq, as a dashboard's subscribe ack reports it. */
async function latestSeq(): Promise<number> {
  const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
  const ack = await dashboard.emitWithAck('subscribe', {});
  dashboard.disconnect();
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.seq;
}

/** A document whose JSON text is exactly `bytes` UTF-8 bytes, written with 2-byte characters. */
function documentOfBytes(bytes: number): { b: string } {
  const overhead = JSON.stringify({ b: '' }).length; // {"b":""}
  const body = bytes - overhead;
  return { b: 'é'.repeat(Math.floor(body / 2)) + 'x'.repeat(body % 2) };
}

describe('spec 3: requestId', () => {
  it('is idempotent per session: the same requestId on another session is a new write', async () => {
    const a = await startSession(runner, { metadata: {} });
    const b = await startSession(runner, { metadata: {} });
    expect(await runner.emitWithAck('update-metadata', { sid: a.sid, expectedVersion: 1, patch: { on: 'a' }, requestId: 'same' })).toEqual({ result: 'success', version: 2, metadata: { on: 'a' } });
    expect(await runner.emitWithAck('update-metadata', { sid: b.sid, expectedVersion: 1, patch: { on: 'b' }, requestId: 'same' })).toEqual({ result: 'success', version: 2, metadata: { on: 'b' } });
    expect(await runner.emitWithAck('update-state', { sid: b.sid, expectedVersion: 1, agentState: { on: 'b' }, requestId: 'same' })).toEqual({ result: 'success', version: 2, agentState: { on: 'b' } });
  });
});

describe('spec 2/3: a rejected write changes no row', () => {
  it('appends no event for a version mismatch, an error or a requestId retry', async () => {
    const s = await startSession(runner, { metadata: {} });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, patch: { n: 1 }, requestId: 'r1' })).toMatchObject({ result: 'success' });
    const before = await latestSeq();
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, patch: { n: 2 } })).toMatchObject({ result: 'version-mismatch' });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 2, metadata: documentOfBytes(LIMITS.maxDocumentBytes + 1) })).toMatchObject({ result: 'error', code: 'payload_too_large' });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, patch: { n: 1 }, requestId: 'r1' })).toMatchObject({ result: 'success', version: 2 });
    expect(await runner.emitWithAck('update-state', { sid: s.sid, expectedVersion: 9, agentState: null })).toMatchObject({ result: 'version-mismatch' });
    expect(await latestSeq()).toBe(before);
  });
});

describe('spec 12: the document limit', () => {
  it('counts UTF-8 bytes of the JSON and admits exactly 64 KiB, for metadata, patches, agentState and session-start', async () => {
    const exact = documentOfBytes(LIMITS.maxDocumentBytes);
    const over = documentOfBytes(LIMITS.maxDocumentBytes + 1);
    expect(Buffer.byteLength(JSON.stringify(exact))).toBe(64 * 1024);
    // far fewer characters than bytes: a limit counted in characters would let it through
    expect(JSON.stringify(over).length).toBeLessThan(40 * 1024);

    const s = await startSession(runner, { metadata: {} });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, metadata: over })).toMatchObject({ result: 'error', code: 'payload_too_large' });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, patch: over })).toMatchObject({ result: 'error', code: 'payload_too_large' });
    expect(await runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: 1, metadata: exact })).toEqual({ result: 'success', version: 2, metadata: exact });
    expect(await runner.emitWithAck('update-state', { sid: s.sid, expectedVersion: 1, agentState: over })).toMatchObject({ result: 'error', code: 'payload_too_large' });
    expect(await runner.emitWithAck('update-state', { sid: s.sid, expectedVersion: 1, agentState: exact })).toEqual({ result: 'success', version: 2, agentState: exact });
    expect(await runner.emitWithAck('session-start', { tag: 'over', flavor: 'claude', source: 'startup', metadata: over })).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
    expect(await runner.emitWithAck('session-start', { tag: 'exact', flavor: 'claude', source: 'startup', metadata: exact })).toMatchObject({ ok: true, session: { metadata: { version: 1, value: exact } } });
  });
});
