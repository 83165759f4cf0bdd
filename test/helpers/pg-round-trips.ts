import type { Socket } from 'node:net';
import { startPgRelay, type PgRelay } from './pg-relay.js';

/**
 * Splits a stream of PostgreSQL protocol messages (a type byte, then a length that counts itself)
 * as it arrives in chunks: `onMessage(type)` for each whole one. `untyped`: the first message has
 * no type byte (a client's startup packet).
 */
function messageReader(onMessage: (type: string) => void, untyped: boolean): { read(chunk: Buffer): void; midMessage(): boolean } {
  let pending = Buffer.alloc(0);
  let first = untyped;
  return {
    read(chunk) {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = first ? 4 : 5;
        if (pending.length < header) return;
        const length = pending.readInt32BE(header - 4);
        const size = header - 4 + length;
        if (pending.length < size) return;
        if (!first) onMessage(String.fromCharCode(pending[0]!));
        first = false;
        pending = pending.subarray(size);
      }
    },
    midMessage: () => pending.length > 0,
  };
}

/**
 * A relay to a PostgreSQL server that counts round trips as the wire sees them: each time a
 * connection's client starts sending while every statement it sent before is answered (a pipeline
 * of statements sent together is one round trip), summed over every connection. The answers reach
 * the client 2 ms late and count as answered only then: one write that reaches the relay in several
 * chunks is one trip even when the server has answered its first statements before the last chunk
 * came (a one-round-trip batch starts with BEGIN, answered at once).
 */
export async function startRoundTripCounter(databaseUrl: string): Promise<PgRelay & { roundTrips(): number }> {
  let roundTrips = 0;
  const fromServer = new Map<Socket, ReturnType<typeof messageReader>>();
  const relay = await startPgRelay(databaseUrl, (client, upstream) => {
    // Sync and simple Query each get one ReadyForQuery ('Z'); the server's first one ends the startup
    let unanswered = 0;
    const fromClient = messageReader((type) => {
      if (type === 'S' || type === 'Q') unanswered++;
    }, true);
    fromServer.set(client, messageReader((type) => {
      if (type === 'Z') unanswered = Math.max(0, unanswered - 1);
    }, false));
    client.on('data', (chunk: Buffer) => {
      // the rest of a message already begun, or more while answers are still due, is the same trip
      if (!fromClient.midMessage() && unanswered === 0) roundTrips++;
      fromClient.read(chunk);
      upstream.write(chunk);
    });
    client.on('close', () => {
      fromServer.delete(client);
      upstream.end();
    });
  }, { answerDelayMs: 2, onAnswer: (client, chunk) => fromServer.get(client)?.read(chunk) });
  return { ...relay, roundTrips: () => roundTrips };
}
