import { startPgRelay } from './pg-relay.js';

/**
 * A relay to the test PostgreSQL that counts the statements the hub sends (the extended protocol's
 * Bind messages, one per statement run), as the server receives them; `statementsMatching` counts
 * those whose text (from the Parse that prepared them) matches.
 */
export async function startStatementCounter(databaseUrl: string) {
  let binds = 0;
  const textOf = new Map<string, string>();
  const boundTexts: string[] = [];
  const cString = (buffer: Buffer, from: number) => {
    const end = buffer.indexOf(0, from);
    return { value: buffer.toString('utf8', from, end), next: end + 1 };
  };
  const counter = await startPgRelay(databaseUrl, (client, upstream) => {
    let pending = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) break;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) break;
        if (started && pending[0] === 0x50) {
          // 'P': statement name, then its text
          const name = cString(pending, 5);
          textOf.set(name.value, cString(pending, name.next).value);
        }
        if (started && pending[0] === 0x42) {
          // 'B': portal name, then the statement's
          binds++;
          const statement = cString(pending, cString(pending, 5).next).value;
          boundTexts.push(textOf.get(statement) ?? '');
        }
        // an SSL request is followed by another untyped startup message
        if (!started && !(length === 8 && pending.readInt32BE(4) === 80877103)) started = true;
        pending = pending.subarray(length);
      }
    });
    client.on('close', () => upstream.end());
  });
  return {
    ...counter,
    statements: () => binds,
    statementsMatching: (pattern: RegExp) => boundTexts.filter((text) => pattern.test(text)).length,
  };
}
