/** The real `session-hub runner` process (the compiled CLI), with the real Claude Code CLI on its PATH. */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { agentBinaries } from '../../agents/helpers/claude.js';

const CLI = resolve(import.meta.dirname, '../../../dist/hub/cli.js');

export interface RunnerProcess {
  child: ChildProcess;
  output(): string;
  /** The JSON log lines so far. */
  logs(): Record<string, unknown>[];
  stop(): Promise<void>;
  kill9(): Promise<void>;
}

/** The machine token in the runner's environment (`token`), or in a file the environment names (`tokenFile`, the way runner install sets it up). */
export function spawnRunner(options: { hubUrl: string; token?: string; tokenFile?: string; roots: string[]; env: Record<string, string>; args?: string[] }): RunnerProcess {
  const tokenEnv = options.tokenFile !== undefined ? { SESSION_HUB_MACHINE_TOKEN_FILE: options.tokenFile } : { SESSION_HUB_MACHINE_TOKEN: options.token ?? '' };
  const child = spawn(process.execPath, [CLI, 'runner', '--hub', options.hubUrl, ...options.roots.flatMap((root) => ['--root', root]), ...(options.args ?? [])], {
    env: { PATH: `${dirname(agentBinaries().claude)}:${process.env.PATH ?? ''}`, ...options.env, ...tokenEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  return {
    child,
    output: () => output,
    logs: () => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
