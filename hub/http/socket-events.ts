/**
 * `GET /api/socket-events.json`: the Socket.IO events of both namespaces, each with the JSON Schema
 * of its payload and of its ack, generated from shared/protocol/socket-catalog.ts (the schemas the
 * hub validates with). No token, like the OpenAPI document beside it.
 */
import type { FastifyInstance } from 'fastify';
import { DASHBOARD_EVENTS, RUNNER_EVENTS, type EventSchemas } from '../../shared/protocol/socket-catalog.js';
import { jsonSchemaOf } from './openapi.js';

type Direction = 'clientToServer' | 'serverToClient';

function describeEvents(events: Record<string, EventSchemas>, direction: Direction) {
  // what the sender writes is validated as input; what the hub answers or sends is its output
  const [payloadIo, ackIo] = direction === 'clientToServer' ? (['input', 'output'] as const) : (['output', 'input'] as const);
  return Object.fromEntries(
    Object.entries(events).map(([name, event]) => [
      name,
      { about: event.about, payload: jsonSchemaOf(event.payload, payloadIo), ...(event.ack ? { ack: jsonSchemaOf(event.ack, ackIo) } : {}) },
    ]),
  );
}

export function socketEventsDocument() {
  const namespace = (events: typeof RUNNER_EVENTS | typeof DASHBOARD_EVENTS) => ({
    clientToServer: describeEvents(events.clientToServer, 'clientToServer'),
    serverToClient: describeEvents(events.serverToClient, 'serverToClient'),
  });
  return {
    transport: 'Socket.IO 4 (engine.io 6) at the hub\'s URL; authenticate with auth: { token } in the handshake (docs/security.md)',
    namespaces: { '/runner': namespace(RUNNER_EVENTS), '/dashboard': namespace(DASHBOARD_EVENTS) },
  };
}

export function serveSocketEvents(app: FastifyInstance): void {
  let document: ReturnType<typeof socketEventsDocument> | undefined;
  app.get('/api/socket-events.json', async () => (document ??= socketEventsDocument()));
}
