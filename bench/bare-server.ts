/**
 * The ceiling for the write benchmark: a bare Socket.IO server (same socket.io version, same
 * options as the hub) that answers `session-start`/`session-join`/`update-metadata` with no store,
 * no validation and no merge: it only acks and broadcasts the payload to the session's room.
 * Run as a child process by write-throughput.ts; prints `bare server listening on port N`.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { LIMITS } from '../shared/protocol/limits.js';

type Ack = (response: unknown) => void;

const http = createServer();
const io = new Server(http, { maxHttpBufferSize: LIMITS.maxFrameBytes, pingInterval: 10_000, pingTimeout: 10_000 });
let seq = 0;

io.of('/runner').on('connection', (socket) => {
  socket.on('session-start', (_payload: unknown, ack: Ack) => {
    const sid = randomUUID();
    void socket.join(`session:${sid}`);
    ack({ ok: true, session: { sid, metadata: { version: 1, value: {} } }, created: true });
  });
  socket.on('session-join', (payload: { sid: string }, ack: Ack) => {
    void socket.join(`session:${payload.sid}`);
    ack({ ok: true, session: { sid: payload.sid } });
  });
  socket.on('update-metadata', (payload: { sid: string; expectedVersion: number; patch: Record<string, unknown> }, ack: Ack) => {
    const version = payload.expectedVersion + 1;
    ack({ result: 'success', version, metadata: payload.patch });
    const body = { t: 'update-session', sid: payload.sid, metadata: { version, value: payload.patch }, agentState: null, lifecycle: null, presence: null };
    socket.to(`session:${payload.sid}`).emit('update', { id: randomUUID(), seq: ++seq, createdAt: Date.now(), body });
  });
});

http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare server listening on port ${(http.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  io.close();
  process.exit(0);
});
