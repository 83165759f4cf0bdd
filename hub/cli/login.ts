import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HOOK_ROLES } from '../../shared/protocol/auth.js';
import { writeUserConfig } from '../hook/user-config.js';

export const LOGIN_HELP = `session-hub login <url> [--token TOKEN]

Keeps the hub's URL and a token in your config (${'$'}XDG_CONFIG_HOME/session-hub/config.json, default
~/.config/session-hub/config.json, readable by you only), so the installed hooks need no exported
SESSION_HUB_URL / SESSION_HUB_TOKEN (exported ones still win). The token is checked with the hub
first; give an agent token (session-hub token create --role agent): it reports hook events and
takes messages, nothing more. The token comes from --token, else SESSION_HUB_TOKEN, else stdin.`;

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
  const token = (values.token ?? process.env.SESSION_HUB_TOKEN ?? (process.stdin.isTTY ? '' : readFileSync(0, 'utf8'))).trim();
  if (token === '') return fail(2, 'no token: pass --token TOKEN (an agent token: session-hub token create --role agent)');
  let response: Response;
  try {
    response = await fetch(new URL('/api/whoami', url), { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    return fail(1, `could not reach ${url.origin}: ${(error as Error).message}; is the hub running there?`);
  }
  if (response.status === 401) return fail(1, `${url.origin} does not know this token (unknown, revoked or expired); nothing was kept`);
  if (!response.ok) return fail(1, `${url.origin} answered ${response.status} to GET /api/whoami; nothing was kept`);
  const { role, namespace } = (await response.json()) as { role: string; namespace: string };
  if (!(HOOK_ROLES as readonly string[]).includes(role)) {
    return fail(1, `this is a ${role} token: the hooks' route refuses it. Use an agent token (session-hub token create --role agent); nothing was kept`);
  }
  const path = writeUserConfig(process.env, { url: url.origin + url.pathname.replace(/\/+$/, ''), token });
  process.stdout.write(`kept ${url.origin} and ${role === 'agent' || role === 'admin' ? 'an' : 'a'} ${role} token of namespace "${namespace}" in ${path} (mode 0600)\n`);
  if (role !== 'agent') {
    process.stderr.write(`note: a ${role} token reads every session of its namespace, and the agent's own tools can read this file; an agent token is safer (session-hub token create --role agent)\n`);
  }
}

function fail(code: number, message: string): void {
  process.stderr.write(`session-hub login: ${message}\n`);
  process.exitCode = code;
}

