import { parseArgs } from 'node:util';
import { ROLE_NAMES, RoleSchema } from '../../shared/protocol/auth.js';
import { mintToken } from '../services/tokens.js';
import { listTokens } from '../store/tokens.js';
import { openExistingStore, UsageError, withUsageErrors } from './offline.js';

export const TOKEN_HELP = `session-hub token create --role <runner|dashboard|operator|admin> [--namespace NAME] [--data DIR]
session-hub token list [--data DIR]

create  makes a new token, stores only its hash in the hub database and prints the token once.
        A running hub accepts it within seconds, without a restart.
list    shows every stored token's role, namespace, origin and age (never a token).

Options:
  --role <role>        runner, dashboard, operator (a dashboard that may also decide tool
                       approvals) or admin (create)
  --namespace <name>   the tenant namespace (create; default "default")
  --data <dir>         the hub's data directory (SESSION_HUB_DATA, default ./data); with
                       SESSION_HUB_DATABASE_URL set, that PostgreSQL database instead
  -h, --help           show this help

Tokens given in SESSION_HUB_TOKENS replace the stored ones entirely: while it is set, a hub does
not read the database's tokens.`;

export async function tokenCommand(argv: string[]): Promise<void> {
  await withUsageErrors('token', async () => {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { role: { type: 'string' }, namespace: { type: 'string' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    const [action] = positionals;
    if (values.help || action === undefined) {
      process.stdout.write(`${TOKEN_HELP}\n`);
      return;
    }
    if (action !== 'create' && action !== 'list') throw new UsageError(`unknown action "${action}"; use create or list`);
    const { store } = await openExistingStore(values.data);
    try {
      if (action === 'list') {
        const now = Date.now();
        for (const t of await listTokens(store)) {
          process.stdout.write(`${t.role.padEnd(9)} ${t.namespace.padEnd(16)} ${t.source.padEnd(9)} created ${new Date(t.createdAt).toISOString()} (${Math.round((now - t.createdAt) / 86_400_000)} days ago)\n`);
        }
        return;
      }
      const role = RoleSchema.safeParse(values.role);
      if (!role.success) throw new UsageError(`--role must be ${ROLE_NAMES}`);
      const namespace = values.namespace ?? 'default';
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) throw new UsageError('--namespace: 1–64 letters, digits, "_", "." or "-"');
      const { token } = await mintToken(store, { role: role.data, namespace, source: 'cli', now: Date.now() });
      process.stdout.write(`${token}\n`);
      process.stderr.write(`created a new token: role ${role.data}, namespace "${namespace}"; it is shown only now\n`);
      if (process.env.SESSION_HUB_TOKENS) process.stderr.write('note: SESSION_HUB_TOKENS is set, so a hub started with it ignores stored tokens\n');
    } finally {
      await store.close();
    }
  });
}
