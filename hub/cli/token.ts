import { parseArgs } from 'node:util';
import { ROLE_NAMES, RoleSchema } from '../../shared/protocol/auth.js';
import { durationMs, TokenIdSchema, TokenLabelSchema } from '../../shared/protocol/tokens.js';
import { TOKEN_REFRESH_MS } from '../services/token-watch.js';
import { mintToken, revokeStoredToken } from '../services/tokens.js';
import { listTokens, type StoredToken } from '../store/tokens.js';
import { openExistingStore, UsageError, withUsageErrors } from './offline.js';

export const TOKEN_HELP = `session-hub token create --role <${RoleSchema.options.join('|')}> [--label TEXT] [--namespace NAME] [--expires-in 30d] [--data DIR]
session-hub token list [--data DIR]
session-hub token revoke <id> [--data DIR]

create  makes a new token, stores only its hash in the hub database and prints the token once
        (stdout; its id on stderr). A running hub accepts it within seconds, without a restart.
list    shows every stored token: id, role, namespace, origin, created, last used, expires or
        revoked, and its label (never a token).
revoke  refuses the token from now on: every hub process on this database stops accepting it
        within seconds and disconnects the sockets holding it. The row stays, shown as revoked.

Options:
  --role <role>        ${ROLE_NAMES} (create); agent: the hooks' token (hook events and
                       messages only); operator: a dashboard that may also decide tool approvals;
                       machine: a runner that may also register a machine (session-hub runner,
                       docs/machines.md)
  --label <text>       create: a name for the token, e.g. "ci runner" or "alice's laptop"
                       (at most 64 characters, one line); shown instead of its bare id where
                       it decided an approval, and by list
  --namespace <name>   the tenant namespace (create; default "default")
  --expires-in <time>  create: valid for this long, e.g. 30d, 12h, 45m, 90s (default: no expiry)
  --data <dir>         the hub's data directory (SESSION_HUB_DATA, default ./data); with
                       SESSION_HUB_DATABASE_URL set, that PostgreSQL database instead
  -h, --help           show this help

Tokens given in SESSION_HUB_TOKENS replace the stored ones entirely: while it is set, a hub does
not read the database's tokens, and those tokens cannot be revoked (change the setting instead).`;

const ACTIONS = ['create', 'list', 'revoke'];

function when(at: number | null, none: string): string {
  return at === null ? none : new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One `token list` line: what a person needs to pick the token to revoke. */
function listLine(t: StoredToken, now: number): string {
  const state = t.revokedAt !== null ? `revoked ${when(t.revokedAt, '')}` : t.expiresAt !== null && t.expiresAt <= now ? `expired ${when(t.expiresAt, '')}` : `expires ${when(t.expiresAt, 'never')}`;
  return [t.id, t.role.padEnd(9), t.namespace.padEnd(16), t.source.padEnd(9), `created ${when(t.createdAt, '')}`, `last used ${when(t.lastUsedAt, 'never').padEnd(20)}`, state.padEnd(28), t.label === null ? '' : JSON.stringify(t.label)].join('  ').trimEnd();
}

export async function tokenCommand(argv: string[]): Promise<void> {
  await withUsageErrors('token', async () => {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        role: { type: 'string' },
        namespace: { type: 'string' },
        'expires-in': { type: 'string' },
        label: { type: 'string' },
        data: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [action, id] = positionals;
    if (values.help || action === undefined) {
      process.stdout.write(`${TOKEN_HELP}\n`);
      return;
    }
    if (!ACTIONS.includes(action)) throw new UsageError(`unknown action "${action}"; use ${ACTIONS.join(', ')}`);
    const { store } = await openExistingStore(values.data);
    try {
      if (action === 'revoke' && !TokenIdSchema.safeParse(id).success) throw new UsageError('revoke needs a token id: 12 hexadecimal digits, as "token list" shows');
      const role = RoleSchema.safeParse(values.role);
      if (action === 'create' && !role.success) throw new UsageError(`--role must be ${ROLE_NAMES}`);
      const expiresIn = values['expires-in'];
      const expiresInMs = expiresIn === undefined ? undefined : durationMs(expiresIn);
      if (expiresIn !== undefined && expiresInMs === undefined) throw new UsageError(`--expires-in: "${expiresIn}" is not a duration; use e.g. 30d, 12h, 45m or 90s`);
      const label = values.label === undefined ? undefined : TokenLabelSchema.safeParse(values.label);
      if (label !== undefined && !label.success) throw new UsageError(`--label ${label.error.issues[0]?.message ?? 'is not valid'}`);
      if (label !== undefined && action !== 'create') throw new UsageError('--label is for create only');
      const namespace = values.namespace ?? 'default';
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) throw new UsageError('--namespace: 1–64 letters, digits, "_", "." or "-"');
      const now = Date.now();
      if (action === 'list') {
        const tokens = await listTokens(store);
        for (const t of tokens) process.stdout.write(`${listLine(t, now)}\n`);
        // stderr: stdout stays the list (empty), for scripts
        if (tokens.length === 0) {
          const given = process.env.SESSION_HUB_TOKENS ? ' SESSION_HUB_TOKENS is set, and the tokens it gives are not stored here.' : '';
          process.stderr.write(`no stored tokens in this hub's database.${given} "session-hub token create --role admin" makes one.\n`);
        }
      } else if (action === 'revoke') {
        const revoked = await revokeStoredToken(store, { id: id!, now });
        if (!revoked) throw new UsageError(`no stored token with id ${id}; "session-hub token list" shows the ids`);
        process.stderr.write(`revoked token ${revoked.id} (role ${revoked.role}, namespace "${revoked.namespace}") at ${when(revoked.revokedAt, '')}; running hubs refuse it within ${TOKEN_REFRESH_MS / 1000} s\n`);
      } else {
        const expiresAt = expiresInMs === undefined ? null : now + expiresInMs;
        const { token, stored } = await mintToken(store, { role: role.data!, namespace, source: 'cli', now, expiresAt, label: label?.data ?? null });
        process.stdout.write(`${token}\n`);
        process.stderr.write(
          `created token ${stored.id}${stored.label === null ? '' : ` ${JSON.stringify(stored.label)}`}: role ${stored.role}, namespace "${namespace}", expires ${when(expiresAt, 'never')}; the token is shown only now\n`,
        );
      }
      if (action !== 'list' && process.env.SESSION_HUB_TOKENS) process.stderr.write('note: SESSION_HUB_TOKENS is set, so a hub started with it ignores stored tokens\n');
    } finally {
      await store.close();
    }
  });
}
