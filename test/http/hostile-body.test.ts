/**
 * issue 33.1: one request must not freeze the hub. A 1 MiB hook body nesting arrays 5,000 deep over
 * ~500k elements stopped the event loop for seconds (a prototype-key walk copying its path at every
 * node, before any depth limit); past ~8,000 levels it answered 500 (stack overflow). Every body is
 * now refused or accepted within milliseconds whatever its shape, with the socket path's depth limit
 * (LIMITS.maxJsonDepth) on every route, and a 400 naming the problem. Real hub process, real HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** Generous for a loaded 2-core CI; the hub before the fix took 9 s (29 s on a loaded machine). */
const BOUND_MS = 1000;

/** `levels` arrays nested, each holding `perLevel` zeros before the next one. */
function nestedArrays(levels: number, perLevel: number): string {
  const zeros = perLevel > 0 ? `${Array(perLevel).fill('0').join(',')},` : '';
  return `${`[${zeros}`.repeat(levels)}0${']'.repeat(levels)}`;
}

/** A Claude Code PostToolUse whose tool input is `toolInput` (raw JSON text). */
function hookBody(toolInput: string): string {
  const payload = `{"session_id":"hostile-${Math.random().toString(36).slice(2)}","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":${toolInput}}`;
  return `{"events":[{"id":"hostile-${Math.random().toString(36).slice(2)}","flavor":"claude","firedAt":${Date.now()},"seq":0,"payload":${payload}}]}`;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

function post(hub: HubProcess, path: string, token: string, body: string): Promise<{ status: number; body: { error?: string; message?: string } }> {
  return fetch(`${hub.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string; message?: string } }));
}

async function healthz(hub: HubProcess): Promise<number> {
  const response = await fetch(`${hub.url}/healthz`);
  await response.text();
  return response.status;
}

describe('a hostile body does not stop the hub', () => {
  it('three 1 MiB bodies nesting 5,000 deep over ~500k elements: /healthz and the bodies answer within 1 s', async () => {
    const hub = await spawnHub();
    const body = hookBody(nestedArrays(5000, 100));
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body.length).toBeLessThan(LIMITS.maxHookBatchBytes);
    const hostile = [1, 2, 3].map(() => timed(() => post(hub, '/api/hooks', hub.tokens.runner, body)));
    // the bodies are on the wire and being parsed while /healthz is asked
    await new Promise((resolve) => setTimeout(resolve, 50));
    const health = await timed(() => healthz(hub));
    const answers = await Promise.all(hostile);
    expect(health.value).toBe(200);
    expect(health.ms).toBeLessThan(BOUND_MS);
    for (const answer of answers) {
      expect(answer.value.status).toBe(400);
      expect(answer.value.body.error).toBe('invalid_payload');
      expect(answer.value.body.message).toMatch(/^the body nests deeper than \d+ levels/);
      expect(answer.ms).toBeLessThan(BOUND_MS * 2); // upload of 1 MiB included
    }
  }, 120_000);

  it('a 1 MiB body wide but within the depth limit (~500k elements): answered, and /healthz within 1 s', async () => {
    const hub = await spawnHub();
    // 60 levels holding 8,500 zeros each, under the document limit
    const body = hookBody(nestedArrays(60, 8500));
    expect(body.length).toBeGreaterThan(1_000_000);
    const hostile = timed(() => post(hub, '/api/hooks', hub.tokens.runner, body));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const health = await timed(() => healthz(hub));
    const answer = await hostile;
    expect(health.ms).toBeLessThan(BOUND_MS);
    expect(answer.value.status).toBe(200);
    expect(answer.ms).toBeLessThan(BOUND_MS * 3);
  }, 120_000);

  it('a 10,000-deep body is a 400 naming the depth, on every route, arrays or objects; never a 500', async () => {
    const hub = await spawnHub();
    const deepArrays = nestedArrays(10_000, 0);
    const deepObjects = `${'{"a":'.repeat(10_000)}0${'}'.repeat(10_000)}`;
    for (const [path, token] of [
      ['/api/hooks', hub.tokens.runner],
      ['/api/sessions/some-sid/messages', hub.tokens.operator],
      ['/api/tokens', hub.tokens.admin],
    ] as const) {
      for (const body of [deepArrays, deepObjects, hookBody(deepArrays)]) {
        const answer = await post(hub, path, token, body);
        expect(answer.status, `${path}`).toBe(400);
        expect(answer.body.error).toBe('invalid_payload');
        expect(answer.body.message).toMatch(/nests deeper than \d+ levels of arrays and objects \(at character \d+\): a JSON document may nest at most 64 levels below its root/);
      }
    }
    expect(await healthz(hub)).toBe(200);
  }, 60_000);

  it('the same document depth limit on the hook route and the socket: 64 levels below the root pass, 65 do not', async () => {
    const hub = await spawnHub();
    /** A document whose deepest value lies `depth` levels below its root. */
    const doc = (depth: number) => `{"x":${'['.repeat(depth - 1)}0${']'.repeat(depth - 1)}}`;
    const atLimit = JSON.parse(doc(LIMITS.maxJsonDepth)) as JsonObject;
    const past = JSON.parse(doc(LIMITS.maxJsonDepth + 1)) as JsonObject;

    // the hook route: the document is the payload's tool_input, so it lies one level deeper in the payload
    const hookAt = await post(hub, '/api/hooks', hub.tokens.runner, hookBody(doc(LIMITS.maxJsonDepth - 1)));
    expect(hookAt.status).toBe(200);
    const hookPast = await post(hub, '/api/hooks', hub.tokens.runner, hookBody(doc(LIMITS.maxJsonDepth)));
    expect(hookPast.status).toBe(400);
    expect(hookPast.body.message).toContain(`nested deeper than ${LIMITS.maxJsonDepth} levels`);

    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner);
    const accepted = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: session.metadata.version, patch: atLimit });
    expect(accepted).toMatchObject({ result: 'success' });
    const refused = await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: (accepted as { version: number }).version, patch: past });
    expect(refused).toMatchObject({ result: 'error', code: 'invalid_payload' });
    expect((refused as { message: string }).message).toContain(`nested deeper than ${LIMITS.maxJsonDepth} levels`);
  }, 60_000);
});
