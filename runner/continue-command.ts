/**
 * `session-hub continue <sid>`: take a session back at this computer (spec section 16). Asks the
 * hub (`POST /api/sessions/:sid/take-back`, through the resume gate), which ends a machine
 * runner's agent for it first; then starts the agent's own CLI here, in the session's directory,
 * resuming that conversation, in this terminal. A client of the hub: it imports only shared/.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { getFlavor, resumeTokenProblem } from '../shared/flavors.js';
import { TakeBackResponseSchema } from '../shared/protocol/machines.js';

export const CONTINUE_HELP = `session-hub continue <sid> [--hub URL] [--force] [--now]

Continues a hub session in this terminal: the hub checks it can be resumed (the resume gate;
--force resumes one the gate calls unsafe), a machine runner that drives it ends its agent after
the current turn (--now: at once) and its run ends as a success, then the agent's own CLI starts
here in the session's directory, resuming that conversation. Its hooks (session-hub hook install)
report to the same hub session.

  --hub URL   the hub (default SESSION_HUB_URL, else http://127.0.0.1:3737)
  SESSION_HUB_TOKEN   an operator or admin token (session-hub token create --role operator)`;

function fail(message: string, code = 1): never {
  process.stderr.write(`session-hub continue: ${message}\n`);
  process.exit(code);
}

export async function continueCommand(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${CONTINUE_HELP}\n`);
    return;
  }
  const sid = argv.find((arg, i) => !arg.startsWith('-') && argv[i - 1] !== '--hub');
  if (!sid) fail(`which session? ${CONTINUE_HELP.split('\n')[0]}`, 2);
  const hubAt = argv.indexOf('--hub');
  const hub = (hubAt >= 0 ? argv[hubAt + 1] : undefined) ?? process.env.SESSION_HUB_URL ?? 'http://127.0.0.1:3737';
  const token = process.env.SESSION_HUB_TOKEN;
  if (!token) fail('set SESSION_HUB_TOKEN to an operator or admin token (session-hub token create --role operator)', 2);
  const now = argv.includes('--now');
  if (!now) process.stderr.write('Asking the hub; an agent a machine runner drives for it ends after its current turn (--now: at once)…\n');
  let response: Response;
  try {
    response = await fetch(`${hub.replace(/\/+$/, '')}/api/sessions/${encodeURIComponent(sid)}/take-back`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy: argv.includes('--force') ? 'force' : 'safe', now }),
    });
  } catch (error) {
    fail(`the hub at ${hub} did not answer (${error instanceof Error ? error.message : String(error)}): is it running? --hub names another`);
  }
  const body = (await response.json().catch(() => null)) as { error?: string; message?: string } | null;
  if (!response.ok) {
    const hint = body?.error === 'resume_unsafe' ? ' (--force continues it anyway)' : response.status === 403 ? ' (an operator or admin token is needed)' : '';
    fail(`the hub refused: ${body?.error ?? response.status}: ${body?.message ?? ''}${hint}`);
  }
  const taken = TakeBackResponseSchema.parse(body);
  const flavor = getFlavor(taken.flavor);
  if (!flavor?.runner) fail(`${taken.flavor} sessions cannot be continued in a terminal by this command: start the agent yourself in ${taken.path}`);
  // the token reaches the agent's command line: only the agent's own format (the hub checked it too)
  const problem = resumeTokenProblem(flavor.id, taken.token);
  if (problem !== null) fail(`the session's resume token ${problem}: not started`);
  try {
    if (!statSync(taken.path).isDirectory()) throw new Error('not a directory');
  } catch {
    fail(`the session's directory ${taken.path} is not on this computer: run this where the session ran`);
  }
  const args = flavor.runner.terminalResume.map((part) => part.replace('{id}', taken.token));
  process.stderr.write(`${taken.handedOver ? 'The machine runner ended its agent. ' : ''}Continuing ${flavor.displayName} in ${taken.path} (session ${taken.sid}): ${flavor.runner.cli} ${args.join(' ')}\n`);
  const child = spawn(flavor.runner.cli, args, { cwd: taken.path, stdio: 'inherit' });
  child.once('error', (error) => fail(`could not start ${flavor.runner!.cli}: ${error.message} (is it on your PATH?)`));
  const code = await new Promise<number>((resolve) => child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))));
  process.exitCode = code;
}
