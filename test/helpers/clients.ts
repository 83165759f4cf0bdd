import { io, type Socket } from 'socket.io-client';
import type { DashboardClientToServerEvents, RunnerClientToServerEvents, RunnerServerToClientEvents, ServerToClientEvents } from '../../shared/protocol/events.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';

export type RunnerSocket = Socket<RunnerServerToClientEvents, RunnerClientToServerEvents>;
export type DashboardSocket = Socket<ServerToClientEvents, DashboardClientToServerEvents>;

const open: Socket[] = [];

function connect<S extends Socket>(url: string, namespace: string, auth: Record<string, unknown>): Promise<S> {
  const socket = io(`${url}${namespace}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true }) as S;
  open.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => reject(error));
  });
}

/** A real socket.io-client on `/runner`, connected. */
export function connectRunner(url: string, token: string, extra: { lastSeq?: number } = {}): Promise<RunnerSocket> {
  return connect(url, '/runner', { token, ...extra });
}

/** A real socket.io-client on `/dashboard`, connected. */
export function connectDashboard(url: string, token: string, extra: { lastSeq?: number } = {}): Promise<DashboardSocket> {
  return connect(url, '/dashboard', { token, ...extra });
}

/** The connect_error message a handshake is refused with. */
export async function handshakeError(url: string, namespace: string, auth: Record<string, unknown>): Promise<string> {
  try {
    await connect(url, namespace, auth);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('handshake was accepted');
}

/** Closes every socket these helpers opened (call in afterEach). */
export function closeAllClients(): void {
  for (const socket of open.splice(0)) socket.disconnect();
}

/** Collects `update` events a socket receives. */
export function collectUpdates(socket: Socket): UpdateEvent[] {
  const events: UpdateEvent[] = [];
  socket.on('update', (event: UpdateEvent) => events.push(event));
  return events;
}

/** Resolves when `predicate` holds, polling (it may read the store: async); rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a claude session on a runner socket and returns its snapshot. */
/**
 * A runner's proof that it is a session's own taker of messages (docs/messages.md): the helpers'
 * sessions are started with `testTaker()`; a runner joining with the same key is that runner again.
 */
export function testTaker(process = 'test runner', key = 'test-taker-key-'.padEnd(40, 'k')): { key: string; process: string } {
  return { key, process };
}

export async function startSession(runner: RunnerSocket, overrides: Partial<Parameters<RunnerClientToServerEvents['session-start']>[0]> = {}) {
  const ack = await runner.emitWithAck('session-start', {
    taker: testTaker(),
    tag: `tag-${Math.random().toString(36).slice(2)}`,
    flavor: 'claude',
    source: 'startup',
    metadata: { path: '/work/project', host: 'laptop', claudeSessionId: 'claude-abc' },
    ...overrides,
  });
  if (!ack.ok) throw new Error(`session-start failed: ${ack.error.message}`);
  return ack.session;
}
