/**
 * Wake-ups under a millisecond away without spinning the event loop (bench/delay-proxy.ts).
 *
 * Node's timers fire at whole milliseconds, so the proxy polled the last part of a sub-millisecond
 * wait with setImmediate: at 0.5 ms each way under load that kept it busy ~60 % of a core, on a
 * 2-core machine shared with the hub and PostgreSQL, a cost no network puts on either. Here a worker
 * thread sleeps on a futex (Atomics.wait takes fractional milliseconds) until the earliest time
 * asked, then posts a message, which wakes this thread's loop at once.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

// state[0]: 0 idle, 1 armed for due[0] (epoch ms). The worker disarms before it posts, so an arm
// made meanwhile is seen on its next wait.
const SLEEPER = `
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData, 0, 1);
const due = new Float64Array(workerData, 8, 1);
for (;;) {
  Atomics.wait(state, 0, 0);
  for (;;) {
    const wait = due[0] - (performance.timeOrigin + performance.now());
    if (wait <= 0) break;
    Atomics.wait(state, 0, 1, wait);
  }
  if (Atomics.compareExchange(state, 0, 1, 0) === 1) parentPort.postMessage(0);
}`;

export class PreciseWake {
  private readonly state: Int32Array;
  private readonly due: Float64Array;
  private readonly worker: Worker;
  /** Callbacks waiting, each with its time (this thread's performance.now()). */
  private readonly waiting: { at: number; fn: () => void }[] = [];

  constructor() {
    const shared = new SharedArrayBuffer(16);
    this.state = new Int32Array(shared, 0, 1);
    this.due = new Float64Array(shared, 8, 1);
    this.worker = new Worker(SLEEPER, { eval: true, workerData: shared });
    this.worker.on('message', () => this.fire());
    // a proxy in a test's process must not keep it alive
    this.worker.unref();
  }

  /** Calls fn once performance.now() has reached `at`. */
  at(at: number, fn: () => void): void {
    this.waiting.push({ at, fn });
    this.arm();
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }

  private arm(): void {
    if (this.waiting.length === 0) return;
    const earliest = Math.min(...this.waiting.map((entry) => entry.at));
    this.due[0] = performance.timeOrigin + earliest;
    Atomics.store(this.state, 0, 1);
    Atomics.notify(this.state, 0);
  }

  private fire(): void {
    const now = performance.now();
    const due = this.waiting.filter((entry) => entry.at <= now);
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((entry) => entry.at > now));
    for (const entry of due) entry.fn();
    this.arm();
  }
}
