/**
 * `npm run build && node dist/bench/storage.js [seconds]`: the write path without sockets (see
 * write-path.ts), 10 sessions. Prints acknowledged writes and the CPU per write of the main thread
 * and of the whole process (the checkpointer's thread added). Steadier than `npm run bench` on a
 * shared machine: what a storage change buys shows here first.
 */
import { fixed } from './stats.js';
import { measureWritePath } from './write-path.js';

const seconds = Number(process.argv[2] ?? 3);
const result = await measureWritePath({ seconds, sessions: 10 });
process.stdout.write(
  `${result.writes} writes in ${seconds} s: ${fixed(result.writesPerSecond, 0)} writes/s, ` +
    `main thread ${fixed(result.mainThreadUsPerWrite)} µs CPU per write, process ${fixed(result.processUsPerWrite)}\n`,
);
