import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { createLogger } from '../../hub/log.js';
import { createMetrics, type HubMetrics } from '../../hub/metrics/metrics.js';
import type { DashboardNamespace, HubServer, RunnerNamespace } from '../../hub/socket/types.js';

export const silentLog = createLogger('silent');

/**
 * A bare Socket.IO server with the hub's two namespaces (no auth, no handlers): a client joins the
 * rooms it names in `auth.rooms`, so tests decide who is in which room.
 */
export interface SocketNode {
  url: string;
  io: HubServer;
  runners: RunnerNamespace;
  dashboards: DashboardNamespace;
  metrics: HubMetrics;
  close(): Promise<void>;
}

const clients: Socket[] = [];

export async function startSocketNode(): Promise<SocketNode> {
  const http = createServer();
  const io: HubServer = new Server(http);
  const runners = io.of('/runner') as unknown as RunnerNamespace;
  const dashboards = io.of('/dashboard') as unknown as DashboardNamespace;
  for (const namespace of [runners, dashboards]) {
    namespace.on('connection', (socket) => {
      const wanted = (socket.handshake.auth as { rooms?: string[] }).rooms ?? [];
      void socket.join(wanted);
    });
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    io,
    runners,
    dashboards,
    metrics: createMetrics(),
    close: () => new Promise<void>((resolve) => io.close(() => resolve())),
  };
}

/** A client on `namespace`, in `rooms`, collecting the `update`s it receives. */
export async function joinRooms(url: string, namespace: '/runner' | '/dashboard', rooms: string[]): Promise<{ socket: Socket; updates: UpdateEvent[] }> {
  const socket = connectClient(`${url}${namespace}`, { auth: { rooms }, transports: ['websocket'], reconnection: false, forceNew: true });
  clients.push(socket);
  const updates: UpdateEvent[] = [];
  socket.on('update', (event: UpdateEvent) => updates.push(event));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return { socket, updates };
}

export function closeClients(): void {
  for (const socket of clients.splice(0)) socket.disconnect();
}

/** An `update-session` event of tenant `namespace` with `seq`, as a write would commit it. */
export function committed(namespace: string, seq: number, sid = 's1') {
  const event: UpdateEvent = {
    id: `${namespace}-${seq}`,
    seq,
    createdAt: seq,
    body: { t: 'update-session', sid, metadata: null, agentState: null, lifecycle: null, presence: null, attention: null, title: sid, activity: 'idle', lastPrompt: null },
  };
  return { namespace, sid, event };
}

/** An event log in memory: what `readEventsSince` would read from the store. */
export function memoryLog() {
  const events = new Map<string, UpdateEvent[]>();
  const reads: { namespace: string; since: number }[] = [];
  return {
    reads,
    append(namespace: string, event: UpdateEvent) {
      const list = events.get(namespace) ?? [];
      list.push(event);
      events.set(namespace, list);
    },
    readEventsSince: async (input: { namespace: string; since: number }) => {
      reads.push(input);
      return (events.get(input.namespace) ?? []).filter((e) => e.seq > input.since).sort((a, b) => a.seq - b.seq);
    },
  };
}
