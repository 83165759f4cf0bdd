import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the Redis server of the test run, or why there is none. */
    testRedis: { url: string } | { error: string };
  }
}

/**
 * The Redis server of the test run: SESSION_HUB_TEST_REDIS_URL when set, as in CI; otherwise a
 * throwaway `redis-server` child (no persistence) on a free loopback port, killed after the run.
 * Without redis-server only the tests that ask for Redis fail, with the reason.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const fromEnv = process.env.SESSION_HUB_TEST_REDIS_URL;
  if (fromEnv) {
    project.provide('testRedis', { url: fromEnv });
    return undefined;
  }
  try {
    const port = await freePort();
    const child = await startRedis(port);
    project.provide('testRedis', { url: `redis://127.0.0.1:${port}` });
    return () => stop(child);
  } catch (error) {
    project.provide('testRedis', { error: `no test Redis server: ${(error as Error).message}` });
    return undefined;
  }
}

/** A `redis-server` child on `port` of loopback, once it answers PING; fails saying what to install. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'ENOENT' ? 'redis-server not found; install redis: apt-get install redis-server (or set SESSION_HUB_TEST_REDIS_URL)' : error.message)),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.trim().slice(-500)}`)));
  });
  exited.catch(() => undefined); // observed below; after a successful start the exit is expected
  const deadline = Date.now() + 15_000;
  while (!(await Promise.race([answersPing(port), exited]))) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) socket.end();
    });
    socket.once('close', () => resolve(reply.startsWith('+PONG')));
    socket.once('error', () => undefined);
  });
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
