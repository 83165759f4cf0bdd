import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the write path. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses 1000 WAL pages: that writer copies the pages to the database file and fsyncs it, on the
 * hub's event loop. Here the writer connection has `wal_autocheckpoint=0`, and a worker thread with
 * its own connection runs PASSIVE checkpoints (they never block the writer, nor wait for it).
 *
 * Durability is unchanged: a transaction is committed once it is in the WAL, checkpoint or not.
 *
 * The WAL file stays bounded: a PASSIVE checkpoint only lets the writer start the WAL over if no
 * commit landed while it ran, which a busy hub rarely allows. So when a checkpoint leaves more than
 * `restartFrames` frames in the WAL, the worker raises a flag and the writer, before its next
 * transaction, checkpoints the few frames committed since (its own PASSIVE checkpoint): its BEGIN
 * then finds the WAL fully copied and starts it over.
 */
export interface CheckpointPolicy {
  /** How often the worker looks at the commit counter. */
  pollMs: number;
  /** Checkpoint after this many commits... */
  everyCommits: number;
  /** ...or once no commit has come for this long (an idle hub's WAL is copied in full). */
  idleMs: number;
  /** Above this many WAL frames after a checkpoint, the writer catches up so the WAL starts over. */
  restartFrames: number;
}

// restartFrames: 8192 frames of 4 KiB, a 32 MiB WAL; at the bench's full load the writer catches up about once a second
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { pollMs: 25, everyCommits: 50, idleMs: 2000, restartFrames: 8192 };

/** Slots of the shared counters. */
const COMMITS = 0;
const RESTART_WANTED = 1;

// Plain CommonJS run with `eval: true`: the same text works from the compiled hub and from the
// TypeScript sources under vitest (a worker cannot load a .ts file).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { file, shared, policy } = workerData;
const counters = new Int32Array(shared);
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
let checkpointed = 0, lastCount = 0, lastChangeAt = Date.now(), truncated = true;
function tick() {
  const count = Atomics.load(counters, ${COMMITS});
  const now = Date.now();
  if (count !== lastCount) { lastCount = count; lastChangeAt = now; truncated = false; }
  const idle = now - lastChangeAt >= policy.idleMs;
  if (idle && !truncated) {
    // idle: copy the rest and give the WAL file's space back. This takes the write lock for a
    // moment; if the hub is writing after all, busy at once, and the next idle spell tries again.
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)');
    if (result.busy === 0) { truncated = true; checkpointed = count; }
    return;
  }
  if (count - checkpointed < policy.everyCommits) return;
  checkpointed = count;
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  if (result.log >= policy.restartFrames) Atomics.store(counters, ${RESTART_WANTED}, 1);
}
const timer = setInterval(() => {
  try { tick(); } catch (error) { parentPort.postMessage({ error: String((error && error.message) || error) }); }
}, policy.pollMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class Checkpointer {
  private readonly counters = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string, policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY, onError: (message: string) => void = () => {}) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, shared: this.counters.buffer, policy, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    this.worker.on('message', (message: { error: string }) => onError(message.error));
    this.worker.on('error', (error) => onError(error.message));
    // a store nobody closes (a test's, a crashed hub's) must not keep the process alive
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** After each COMMIT: a counter in shared memory, no message. */
  committed(): void {
    Atomics.add(this.counters, COMMITS, 1);
  }

  /** Before a write transaction: true (once) when the writer should catch the checkpoint up. */
  restartWanted(): boolean {
    return Atomics.load(this.counters, RESTART_WANTED) === 1 && Atomics.exchange(this.counters, RESTART_WANTED, 0) === 1;
  }

  /** Stops the worker and closes its connection; the writer's close then checkpoints the rest. */
  async stop(): Promise<void> {
    // referenced again while it winds down: with nothing else pending, the process would otherwise
    // exit in the middle of the caller's `await store.close()`
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
