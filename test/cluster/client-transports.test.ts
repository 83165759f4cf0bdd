import { afterEach, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { openSocket } from '../../shared/client/connection.js';
import { startSocketNode, type SocketNode } from './socket-node.js';

const nodes: SocketNode[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.disconnect();
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

/** The transport the server saw a connection open with: what a load balancer has to route. */
async function openingTransport(namespace: '/runner' | '/dashboard'): Promise<string> {
  const node = await startSocketNode();
  nodes.push(node);
  const opened = new Promise<string>((resolve) => node.io.engine.once('connection', (raw: { transport: { name: string } }) => resolve(raw.transport.name)));
  sockets.push(await openSocket(namespace, { url: node.url, token: 'unused by this bare server' }));
  return opened;
}

describe('SDK transports behind a load balancer', () => {
  it('a runner opens on websocket, with no long-polling requests that would need sticky sessions', async () => {
    expect(await openingTransport('/runner')).toBe('websocket');
  });

  it('a dashboard keeps the long-polling start (and fallback)', async () => {
    expect(await openingTransport('/dashboard')).toBe('polling');
  });
});
