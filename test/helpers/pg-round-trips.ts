import { startPgRelay, type PgRelay } from './pg-relay.js';

/**
 * A relay to a PostgreSQL server that counts round trips as the wire sees them: each time a
 * connection's client sends after the server last answered it (a pipeline of statements sent
 * together is one), summed over every connection.
 */
export async function startRoundTripCounter(databaseUrl: string): Promise<PgRelay & { roundTrips(): number }> {
  let roundTrips = 0;
  const relay = await startPgRelay(databaseUrl, (client, upstream) => {
    let answered = true;
    client.on('data', (chunk: Buffer) => {
      if (answered) roundTrips++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', () => {
      answered = true;
    });
    client.on('close', () => upstream.end());
  });
  return { ...relay, roundTrips: () => roundTrips };
}
