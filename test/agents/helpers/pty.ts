/**
 * An agent's TUI in a pseudo-terminal, as a person runs it: util-linux `script -qfec` (`exec`, so no
 * shell stays between the pty and the agent: dash, /bin/sh where $SHELL is unset, would take a
 * Ctrl+C itself), the screen and stderr collected, commands typed as a person types them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface PtyRun {
  child: ChildProcessWithoutNullStreams;
  screen(): string;
  stderr(): string;
  /** The exit code once `script` (and the agent in it) ended. */
  ended: Promise<number | null>;
  /** Types a command, then Enter on its own half a second later. */
  type(command: string): Promise<void>;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function startInPty(argv: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): PtyRun {
  const child = spawn('script', ['-qfec', `exec ${argv.map(quote).join(' ')}`, '/dev/null'], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => undefined);
  const ended = new Promise<number | null>((resolveEnd) => child.once('close', (code) => resolveEnd(code)));
  return {
    child,
    screen: () => screen,
    stderr: () => stderr,
    ended,
    type: async (command) => {
      child.stdin.write(command);
      await new Promise((r) => setTimeout(r, 500));
      child.stdin.write('\r');
    },
  };
}
