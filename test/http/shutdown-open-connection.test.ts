import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

describe('shutdown', () => {
  it('is not held by a connection that never finishes its request (closed after a short grace)', async () => {
    const hub = await startTestHub();
    const socket = connect(hub.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // headers never finished: an active connection, which Node would otherwise keep for its 60 s headers timeout
    socket.write('GET /healthz HTTP/1.1\r\nHost: hub\r\n');
    const closedByHub = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    await hub.close();
    await closedByHub;
    expect(socket.destroyed).toBe(true);
  });
});
