/**
 * The protocol in the repo (docs/protocol.md): GET /api/openapi.json describes every HTTP route the
 * hub registers, and GET /api/socket-events.json every Socket.IO event, each with JSON Schemas a
 * standard validator (Ajv, draft 2020-12: OpenAPI 3.1's dialect) compiles, and that the hub's real
 * requests and answers satisfy. A runner written in another language needs nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
useTestHub((started) => (hub = started));

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json': { schema: Schema } } }>;
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}
interface EventDoc {
  payload: Schema;
  ack?: Schema;
}
interface SocketEvents {
  namespaces: Record<string, { clientToServer: Record<string, EventDoc>; serverToClient: Record<string, EventDoc> }>;
}

const getJson = async <T>(path: string): Promise<T> => {
  const response = await fetch(`${hub.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
};
const ajv = () => new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

/** The routes registered in hub/http's sources, read as text: a count independent of the hook that builds the document. */
function routesInSource(): { count: number; literal: string[] } {
  const dir = resolve(import.meta.dirname, '../../hub/http');
  let count = 0;
  const literal: string[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const match of text.matchAll(/\bapp\.(get|post|put|delete|patch)(?:<[^>]*>)?\(\s*(['`])([^'`]*)\2/g)) {
      count++;
      if (match[2] === "'") literal.push(`${match[1]!.toUpperCase()} ${match[3]!.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    }
  }
  return { count, literal };
}

describe('the protocol documents the hub serves', () => {
  it('GET /api/openapi.json: every registered route, each schema compiling as JSON Schema 2020-12', async () => {
    const doc = await getJson<OpenApi>('/api/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
    const source = routesInSource();
    expect(operations).toHaveLength(source.count);
    expect(source.count).toBeGreaterThan(30);
    for (const route of source.literal) expect(operations.map((o) => o.key)).toContain(route);

    const validator = ajv();
    let schemas = 0;
    for (const { key, op } of operations) {
      const all = [
        ...(op.parameters ?? []).map((p) => p.schema),
        ...(op.requestBody ? [op.requestBody.content['application/json'].schema] : []),
        ...Object.values(op.responses).flatMap((r) => (r.content ? [r.content['application/json'].schema] : [])),
      ];
      for (const schema of all) {
        expect(() => validator.compile(schema), key).not.toThrow();
        schemas++;
      }
    }
    expect(schemas).toBeGreaterThan(50);
  });

  it('the real answers satisfy the document: a session as listed and as read', async () => {
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const { sid } = await startSession(runner, { tag: 'documented' });
    const doc = await getJson<OpenApi>('/api/openapi.json');
    for (const [path, url] of [['/api/sessions', '/api/sessions'], ['/api/sessions/{sid}', `/api/sessions/${sid}`], ['/api/sessions/{sid}/history', `/api/sessions/${sid}/history`]] as const) {
      const validate = ajv().compile(doc.paths[path]!.get!.responses['200']!.content!['application/json'].schema);
      const body: unknown = await (await fetch(`${hub.url}${url}`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } })).json();
      expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('GET /api/socket-events.json: both namespaces, every event with a payload schema; a real session-start and its ack satisfy them', async () => {
    const doc = await getJson<SocketEvents>('/api/socket-events.json');
    const runner = doc.namespaces['/runner']!;
    const dashboard = doc.namespaces['/dashboard']!;
    expect(Object.keys(runner.clientToServer)).toEqual(expect.arrayContaining(['update-metadata', 'update-state', 'session-start', 'session-join', 'prompt-submit', 'tool-use', 'turn-stop', 'usage', 'session-end', 'session-alive', 'attention']));
    expect(Object.keys(runner.serverToClient).sort()).toEqual(['error', 'machine-agent-session-read', 'machine-agent-sessions', 'machine-changes', 'machine-commit', 'machine-diff', 'machine-dirs', 'machine-files', 'machine-interrupt', 'machine-mkdir', 'machine-spawn', 'machine-stop', 'machine-worktree-remove', 'message', 'resync', 'update']);
    expect(Object.keys(dashboard.clientToServer).sort()).toEqual(['subscribe', 'unsubscribe']);
    const validator = ajv();
    for (const events of [runner.clientToServer, runner.serverToClient, dashboard.clientToServer, dashboard.serverToClient]) {
      for (const [name, event] of Object.entries(events)) {
        expect(() => validator.compile(event.payload), name).not.toThrow();
        if (event.ack) expect(() => validator.compile(event.ack!), `${name} ack`).not.toThrow();
      }
    }

    const payload = { tag: 'from-the-doc', flavor: 'claude', source: 'startup' as const, metadata: { path: '/work' } };
    const socket = await connectRunner(hub.url, hub.tokens.runner);
    const ack: unknown = await socket.emitWithAck('session-start', payload);
    const start = runner.clientToServer['session-start']!;
    expect(ajv().validate(start.payload, payload)).toBe(true);
    const validateAck = ajv().compile(start.ack!);
    expect(validateAck(ack), JSON.stringify(validateAck.errors)).toBe(true);
    // and what the schema refuses, the hub refuses
    expect(ajv().validate(start.payload, { tag: 'x', flavor: 'claude', source: 'not-a-source' })).toBe(false);
  });
});
