/**
 * `session-hub runner` options: flags over environment over defaults. Every problem is a start
 * error naming what is wrong and what to do.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { resolveRoots } from './roots.js';
import { drivableClis } from './agents.js';
import { machineTokenFrom, TokenFileError } from './machine-token.js';

export interface RunnerConfig {
  hubUrl: string;
  token: string;
  /** Said at start when the token came from the environment, where every agent can read it. */
  tokenWarning?: string;
  roots: string[];
  name: string;
  allowBypass: boolean;
  /** How often each running agent's session heartbeats (`session-alive`): well inside the hub's alive timeout. */
  aliveEveryMs: number;
}

/** A third of the hub's default alive timeout (SESSION_HUB_ALIVE_TIMEOUT_MS, 30 s): one lost beat does not read "Lost contact". */
export const DEFAULT_ALIVE_EVERY_MS = 10_000;

export const RUNNER_HELP = `session-hub runner [--hub URL] [--root DIR]... [--name NAME] [--allow-bypass]
session-hub runner install [same options]   write a systemd user unit that runs it

Starts and drives coding agents on this computer when a person asks from the hub's page.
Connects out to the hub; listens on no port.

Options:
  --hub URL        the hub (env SESSION_HUB_URL; default http://127.0.0.1:3737)
  --root DIR       a directory under which agents may start; repeatable
                   (env SESSION_HUB_ROOTS, colon-separated; default: the current directory)
  --name NAME      how the page names this machine (default: the host name)
  --allow-bypass   accept permissionMode bypassPermissions (agents then run tools unasked)
  -h, --help       this help

Environment:
  SESSION_HUB_MACHINE_TOKEN_FILE  a file holding a token of role machine, mode 0600 (required,
                              or the variable below): the token then is in no process environment
                              an agent can read. Make one with
                              session-hub token create --role machine --label "my laptop"
                              (runner install writes this file)
  SESSION_HUB_MACHINE_TOKEN   the token itself: accepted with a warning, since every agent the runner
                              starts can read the runner's environment (/proc/<pid>/environ)
  SESSION_HUB_ALIVE_EVERY_MS  how often each agent's session tells the hub it is alive
                              (default ${DEFAULT_ALIVE_EVERY_MS}; keep it well under the hub's
                              SESSION_HUB_ALIVE_TIMEOUT_MS, default 30000)

Agents: the first ${drivableClis().join(' or ')} on this PATH (a warning is logged when none is found).

The machine id is kept in $XDG_CONFIG_HOME/session-hub/machine.json (default ~/.config).
docs/runner.md has the security model and the agents it can drive.`;

export class StartError extends Error {}

export function parseRunnerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): RunnerConfig | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        hub: { type: 'string' },
        root: { type: 'string', multiple: true },
        name: { type: 'string' },
        'allow-bypass': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new StartError(`${error instanceof Error ? error.message : String(error)} (see session-hub runner --help)`);
  }
  const { values } = parsed;
  if (values.help) return 'help';
  let found;
  try {
    found = machineTokenFrom(env);
  } catch (error) {
    if (error instanceof TokenFileError) throw new StartError(error.message);
    throw error;
  }
  if (!found) throw new StartError('neither SESSION_HUB_MACHINE_TOKEN_FILE nor SESSION_HUB_MACHINE_TOKEN is set: create a machine token on the hub (session-hub token create --role machine --label "my laptop"), write it to a file only you can read (chmod 600) and export SESSION_HUB_MACHINE_TOKEN_FILE=<that file>');
  const hubUrl = (values.hub ?? env.SESSION_HUB_URL ?? 'http://127.0.0.1:3737').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(hubUrl)) throw new StartError(`--hub ${hubUrl} is not an http(s) URL`);
  const rootList = values.root && values.root.length > 0 ? values.root : (env.SESSION_HUB_ROOTS ?? '').split(':').filter(Boolean);
  let roots: string[];
  try {
    roots = resolveRoots(rootList.length > 0 ? rootList : [cwd], cwd);
  } catch (error) {
    throw new StartError(error instanceof Error ? error.message : String(error));
  }
  const aliveEvery = env.SESSION_HUB_ALIVE_EVERY_MS?.trim();
  const aliveEveryMs = aliveEvery ? Number(aliveEvery) : DEFAULT_ALIVE_EVERY_MS;
  if (!Number.isInteger(aliveEveryMs) || aliveEveryMs < 100) throw new StartError(`SESSION_HUB_ALIVE_EVERY_MS=${aliveEvery} is not a whole number of milliseconds, 100 or more (default ${DEFAULT_ALIVE_EVERY_MS})`);
  return { hubUrl, token: found.token, ...(found.warning ? { tokenWarning: found.warning } : {}), roots, name: values.name?.trim() || hostname(), allowBypass: values['allow-bypass'] === true, aliveEveryMs };
}
