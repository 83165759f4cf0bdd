/**
 * The delay proxy in a process of its own (bench:scale-out). In the bench's process it shared one
 * event loop with the 100 bench clients: every round trip between a hub and PostgreSQL waited for
 * the clients' socket work as well as for its delay, a cost no network adds. Here it waits only for
 * its delay (and for CPU, like every other process of the run).
 *
 * Run directly, this file is that process: it proxies to the target given in argv, reports its port,
 * and takes `{ delayMs }` messages, answering each once applied.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDelayProxy } from './delay-proxy.js';
import { processCpuSeconds } from './machine-cpu.js';

export interface DelayProxyProcess {
  port: number;
  /** Resolves once the proxy holds chunks for `delayMs` each way. */
  setDelay(delayMs: number): Promise<void>;
  /** The proxy process's CPU seconds so far (machine-cpu.ts). */
  cpuSeconds(): number;
  close(): Promise<void>;
}

export async function startDelayProxyProcess(target: { host: string; port: number }): Promise<DelayProxyProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [target.host, String(target.port)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<{ port?: number }>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`delay proxy process exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.off('exit', onExit);
        resolve(message as { port?: number });
      });
    });
  const { port } = await next();
  return {
    port: port!,
    cpuSeconds: () => processCpuSeconds(child.pid),
    setDelay: async (delayMs) => {
      const applied = next();
      child.send({ delayMs });
      await applied;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const [host, port] = process.argv.slice(2);
  const proxy = await startDelayProxy({ host: host!, port: Number(port) });
  process.on('message', (message: { delayMs: number }) => {
    proxy.delayMs = message.delayMs;
    process.send!({});
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ port: proxy.port });
}
