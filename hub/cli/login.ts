import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { withArticle } from '../../shared/article.js';
import { writeUserConfig } from '../hook/user-config.js';

export const LOGIN_HELP = `session-hub login <url> [--token -]

Keeps the hub's URL and a token in your config (${'$'}XDG_CONFIG_HOME/session-hub/config.json, default
~/.config/session-hub/config.json, readable by you only), so the installed hooks need no exported
SESSION_HUB_URL / SESSION_HUB_TOKEN (exported ones still win). The token is checked with the hub
first, and must be an agent token (session-hub token create --role agent): it reports hook events
and takes messages, nothing more; the agents' own tools can read this file, so no stronger token is
kept there. The token is read from stdin (asked for without echo on a terminal), else from
SESSION_HUB_TOKEN; --token TOKEN still works but puts the token in the process list (a warning says so).`;

/** The roles login keeps: the hooks need an agent token, and the file is readable by the agents' tools (docs/security.md). */
const LOGIN_ROLES: readonly string[] = ['agent'];

/** `session-hub login <url>`: checks the token with the hub (GET /api/whoami), then keeps both. */
export async function loginCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { token: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help || positionals.length !== 1) {
    (values.help ? process.stdout : process.stderr).write(`${LOGIN_HELP}\n`);
    if (!values.help) process.exitCode = 2;
    return;
  }
  let url: URL;
  try {
    url = new URL(positionals[0]!);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    return fail(2, `"${positionals[0]}" is not an http(s) URL; e.g. session-hub login http://127.0.0.1:3737`);
  }
  if (values.token !== undefined && values.token !== '-') {
    process.stderr.write('warning: --token TOKEN shows the token to every user of this computer in the process list; give it on stdin instead (session-hub login URL --token - < token-file)\n');
  }
  const fromArgs = values.token !== undefined && values.token !== '-' ? values.token : undefined;
  const token = (fromArgs ?? (values.token === undefined ? process.env.SESSION_HUB_TOKEN : undefined) ?? (await readToken())).trim();
  if (token === '') return fail(2, 'no token: give an agent token on stdin (session-hub token create --role agent, then session-hub login URL --token - < file)');
  let response: Response;
  try {
    response = await fetch(new URL('/api/whoami', url), { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    return fail(1, `could not reach ${url.origin}: ${(error as Error).message}; is the hub running there?`);
  }
  if (response.status === 401) return fail(1, `${url.origin} does not know this token (unknown, revoked or expired); nothing was kept`);
  if (!response.ok) return fail(1, `${url.origin} answered ${response.status} to GET /api/whoami; nothing was kept`);
  const { role, namespace } = (await response.json()) as { role: string; namespace: string };
  if (!LOGIN_ROLES.includes(role)) {
    return fail(1, `this is ${withArticle(role)} token: the hooks need an agent token, and the agents' own tools can read the file it would be kept in, so nothing stronger is kept there. Make one with session-hub token create --role agent; nothing was kept`);
  }
  const path = writeUserConfig(process.env, { url: url.origin + url.pathname.replace(/\/+$/, ''), token });
  process.stdout.write(`kept ${url.origin} and ${withArticle(role)} token of namespace "${namespace}" in ${path} (mode 0600)\n`);
}

/** The token from stdin: typed without echo on a terminal, else read whole (a pipe or a file). */
async function readToken(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return readFileSync(0, 'utf8');
  process.stderr.write('agent token (not shown): ');
  stdin.setRawMode(true);
  stdin.resume();
  let typed = '';
  try {
    for await (const chunk of stdin) {
      for (const char of String(chunk)) {
        if (char === '\u0003') throw Object.assign(new Error('interrupted'), { interrupted: true });
        if (char === '\r' || char === '\n' || char === '\u0004') return typed;
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    }
    return typed;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

function fail(code: number, message: string): void {
  process.stderr.write(`session-hub login: ${message}\n`);
  process.exitCode = code;
}

