import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AttentionAckSchema } from '../../shared/protocol/attention.js';
import { SubscribeAckSchema } from '../../shared/protocol/dashboard.js';
import {
  OkAckSchema,
  PromptSubmitAckSchema,
  ResumeFailedAckSchema,
  SessionAckSchema,
  SessionStartAckSchema,
  ToolUseAckSchema,
  TurnStopAckSchema,
  UsageAckSchema,
} from '../../shared/protocol/lifecycle.js';
import { UpdateMetadataAckSchema, UpdateStateAckSchema } from '../../shared/protocol/versioned.js';
import { closeAllClients, connectDashboard, connectRunner, startSession, type DashboardSocket, type RunnerSocket } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hostilePayload } from './hostile.js';

/** Every client event, a valid payload to mutate, and the ack schema a correct answer must match. */
function runnerEvents(sid: string): [string, Record<string, unknown>, z.ZodType][] {
  return [
    ['update-metadata', { sid, expectedVersion: 1, patch: { title: 't' } }, UpdateMetadataAckSchema],
    ['update-state', { sid, expectedVersion: 1, agentState: { a: 1 } }, UpdateStateAckSchema],
    ['session-start', { tag: 'fuzz', flavor: 'claude', source: 'startup', metadata: { path: '/p' } }, SessionStartAckSchema],
    ['session-join', { sid, sinceSeq: 0 }, SessionAckSchema],
    ['prompt-submit', { sid, prompt: 'hello', promptId: 'p1' }, PromptSubmitAckSchema],
    ['tool-use', { sid, tool: 'Bash', toolUseId: 'u1', input: { cmd: 'ls' }, output: 'ok' }, ToolUseAckSchema],
    ['turn-stop', { sid, response: 'done', status: 'completed' }, TurnStopAckSchema],
    ['usage', { sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 5 }] }, UsageAckSchema],
    ['session-end', { sid, reason: 'completed', status: 'success' }, SessionAckSchema],
    ['session-finalize', { sid, reason: 'completed' }, SessionAckSchema],
    ['session-archive', { sid, reason: 'done' }, SessionAckSchema],
    ['session-alive', { sid, time: Date.now(), thinking: true }, OkAckSchema],
    ['resume-failed', { sid, tokenKey: 'claudeSessionId', token: 'tok', stage: 'resume', emitted: false, aborted: false }, ResumeFailedAckSchema],
    ['attention', { sid, kind: 'permission', message: 'may I?', tool: 'Bash' }, AttentionAckSchema],
  ];
}
const DASHBOARD_EVENTS: [string, Record<string, unknown>, z.ZodType][] = [
  ['subscribe', { sids: ['x'], sinceSeq: 0 }, SubscribeAckSchema],
  ['unsubscribe', { sids: ['x'] }, OkAckSchema],
];

const LIST_TABLES = {
  sqlite: `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`,
  postgres: `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`,
};

/**
 * Every row of every table: what a rejected event must leave exactly as it was. Rows are sorted as
 * text: PostgreSQL returns an unordered SELECT in no fixed order.
 */
async function dbSnapshot(hub: TestHub): Promise<string> {
  const tables = await hub.deps.store.all<{ name: string }>(LIST_TABLES);
  const contents = [];
  for (const { name } of tables) {
    const rows = await hub.deps.store.all(`SELECT * FROM "${name}"`);
    contents.push([name, rows.map((row) => JSON.stringify(row)).sort()]);
  }
  return JSON.stringify(contents);
}

function isRejection(ack: unknown): boolean {
  const a = ack as { ok?: unknown; result?: unknown };
  return a.ok === false || a.result === 'error' || a.result === 'version-mismatch';
}

let hub: TestHub;
let runner: RunnerSocket;
let dashboard: DashboardSocket;
let sid: string;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  // no sweep and no heartbeat during the run: a rejected event must be the only thing that could change a row
  hub = await startTestHub({ config: { rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000, tokenRateLimitPerSecond: 1_000_000, tokenRateLimitBurst: 1_000_000, sweepMs: 3_600_000, heartbeatMs: 3_600_000 } });
  runner = await connectRunner(hub.url, hub.tokens.runner);
  dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
  sid = (await startSession(runner)).sid;
});
afterAll(async () => {
  closeAllClients();
  await hub.close();
});

async function fuzz(socket: RunnerSocket | DashboardSocket, event: string, valid: Record<string, unknown>, ackSchema: z.ZodType, numRuns: number) {
  await fc.assert(
    fc.asyncProperty(hostilePayload(valid), async (payload) => {
      const before = await dbSnapshot(hub);
      const ack = await (socket as unknown as { timeout(ms: number): { emitWithAck(e: string, p: unknown): Promise<unknown> } })
        .timeout(5000)
        .emitWithAck(event, payload);
      // a correct result or a clear error: the ack matches the event's ack schema exactly
      const parsed = ackSchema.safeParse(ack);
      if (!parsed.success) throw new Error(`${event} ack does not match its schema: ${JSON.stringify(ack).slice(0, 300)}`);
      const error = (ack as { error?: { message: string }; message?: string }).error?.message ?? (ack as { message?: string }).message;
      if (isRejection(ack) && (ack as { result?: string }).result !== 'version-mismatch') expect(error?.length).toBeGreaterThan(0);
      if (isRejection(ack)) expect(await dbSnapshot(hub), `${event} rejected but changed a row`).toBe(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }),
    { numRuns },
  );
}

describe('fuzzing every client event', () => {
  it('answers every /runner event with a clear error or a correct result and changes nothing when rejecting', async () => {
    for (const [event, valid, schema] of runnerEvents(sid)) await fuzz(runner, event, valid, schema, 40);
  }, 120_000);

  it('answers every /dashboard event the same way', async () => {
    for (const [event, valid, schema] of DASHBOARD_EVENTS) await fuzz(dashboard, event, valid, schema, 40);
  }, 60_000);

  it('refuses an own __proto__ key as the JSON decoder delivers it, and keeps constructor as plain data', async () => {
    const current = await runner.emitWithAck('session-join', { sid });
    if (!current.ok) throw new Error(current.error.message);
    const version = current.session.metadata.version;
    const before = await dbSnapshot(hub);
    const polluting = JSON.parse(`{"sid":"${sid}","expectedVersion":${version},"patch":{"__proto__":{"polluted":"yes"}}}`);
    const refused = await runner.emitWithAck('update-metadata', polluting);
    expect(refused).toMatchObject({ result: 'error', code: 'invalid_payload' });
    expect((refused as { message: string }).message).toContain('__proto__');
    expect(await dbSnapshot(hub)).toBe(before);

    const plain = JSON.parse(`{"sid":"${sid}","expectedVersion":${version},"patch":{"constructor":{"prototype":{"polluted":"yes"}}}}`);
    const accepted = await runner.emitWithAck('update-metadata', plain);
    expect(accepted).toMatchObject({ result: 'success', metadata: { constructor: { prototype: { polluted: 'yes' } } } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('is still healthy afterwards: /healthz, a valid write, no prototype pollution', async () => {
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    expect(runner.connected).toBe(true);
    const fresh = await startSession(runner);
    const ack = await runner.emitWithAck('update-metadata', { sid: fresh.sid, expectedVersion: fresh.metadata.version, patch: { after: 'fuzz' } });
    expect(ack).toMatchObject({ result: 'success', version: fresh.metadata.version + 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(Object.prototype.toString.call({})).toBe('[object Object]');
  });
});
