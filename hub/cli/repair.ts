import { parseArgs } from 'node:util';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { HistoryResponse, ListSessionsResponse, RepairResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { Actor } from '../services/deps.js';
import { defaultRepairKeys, planRepair, repairSession } from '../services/repair.js';
import { countSessions, listSessionIdsAfter } from '../store/doctor.js';
import { getSessionAnyNamespace } from '../store/sessions.js';
import { offlineDeps, openExistingStore, UsageError, withUsageErrors } from './offline.js';

export const REPAIR_HELP = `session-hub repair (--sid SID | --all) [--keys k1,k2] [--dry-run] [--data DIR | --url URL --token TOKEN]

Restores keys that are absent from a session's metadata from their most recent value in its history,
as one new metadata version written by "user" (the same as POST /api/sessions/:sid/repair). By
default the key is the session flavor's resume token (a Cursor token brings back its
cursorSessionProtocol from the same version). Nothing is written for a session with nothing to restore.

Options:
  --sid <sid>        repair one session
  --all              repair every session (in the token's namespace with --url)
  --keys <k1,k2>     the keys to restore instead of the flavor's resume token
  --dry-run          show what would be restored; write nothing
  --data <dir>       work on the database in this data directory (SESSION_HUB_DATA, default ./data);
                     with SESSION_HUB_DATABASE_URL set, that PostgreSQL database instead
  --url <url>        work through a running hub's HTTP API instead (needs --token, an admin token)
  --token <token>    admin token for --url (or SESSION_HUB_ADMIN_TOKEN)
  -h, --help         show this help

With --data the change is stored with its events, but a hub running on that directory does not push
it live to connected runners and dashboards (they see it on their next snapshot or reconnect).
Use --url and --token while the hub runs, so every runner in the session's room hears of it.`;

interface Target {
  /** How many sessions will be looked at, for progress. */
  total: number;
  sids: AsyncIterable<string>;
  repair(sid: string, keys: readonly string[] | undefined, dryRun: boolean): Promise<RepairResponse>;
  close(): Promise<void>;
}

async function localTarget(dataDir: string | undefined, all: boolean, sid: string | undefined): Promise<Target> {
  const { store, config, where } = await openExistingStore(dataDir);
  const deps = offlineDeps(store, config);
  return {
    total: all ? await countSessions(store) : 1,
    sids: (async function* () {
      if (!all) return yield sid!;
      for (let after = ''; ; ) {
        const page = await listSessionIdsAfter(store, { after, limit: 500 });
        for (const row of page) yield row.sid;
        if (page.length < 500) return;
        after = page[page.length - 1]!.sid;
      }
    })(),
    async repair(target, keys, dryRun) {
      const session = await getSessionAnyNamespace(store, target);
      if (!session) throw new UsageError(`no session ${target} in ${where}`);
      const actor: Actor = { namespace: session.namespace, role: 'admin', by: 'user' };
      return repairSession(deps, actor, target, keys, { dryRun });
    },
    close: () => store.close(),
  };
}

function remoteTarget(url: string, token: string, all: boolean, sid: string | undefined): Target {
  const base = url.replace(/\/+$/, '');
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      const hint = response.status === 401 || response.status === 403 ? ' (repair needs an admin token of the session\'s namespace)' : '';
      throw new UsageError(`${method} ${path} answered ${response.status}: ${text}${hint}`);
    }
    return JSON.parse(text) as T;
  };
  let total = all ? 0 : 1;
  return {
    get total() {
      return total;
    },
    sids: (async function* () {
      if (!all) return yield sid!;
      // The listing is paged; collect the ids first so the total is known for progress.
      const sids: string[] = [];
      for (let cursor: string | null = null; ; ) {
        const page: ListSessionsResponse = await call('GET', `/api/sessions?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        sids.push(...page.sessions.map((s) => s.sid));
        if (!(cursor = page.nextCursor)) break;
      }
      total = sids.length;
      yield* sids;
    })(),
    async repair(target, keys, dryRun) {
      const path = `/api/sessions/${encodeURIComponent(target)}`;
      if (!dryRun) return call<RepairResponse>('POST', `${path}/repair`, keys === undefined ? {} : { keys });
      // No dry-run endpoint: plan from the snapshot and the history, with the hub's own planner.
      const session = await call<SessionSnapshot>('GET', path);
      const { history } = await call<HistoryResponse>('GET', `${path}/history`);
      const restored = planRepair(session.metadata.value as JsonObject, history, keys ?? defaultRepairKeys(session.flavor));
      return { restored, version: session.metadata.version };
    },
    close: async () => {},
  };
}

export function repairCommand(argv: string[]): Promise<void> {
  return withUsageErrors('repair', () => repair(argv));
}

async function repair(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sid: { type: 'string' },
      all: { type: 'boolean' },
      keys: { type: 'string' },
      'dry-run': { type: 'boolean' },
      data: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${REPAIR_HELP}\n`);
    return;
  }
  if ((values.sid === undefined) === (values.all !== true)) throw new UsageError('give exactly one of --sid SID and --all');
  const token = values.token ?? process.env.SESSION_HUB_ADMIN_TOKEN;
  if (values.url !== undefined && !token) throw new UsageError('--url needs --token with an admin token (or SESSION_HUB_ADMIN_TOKEN)');
  if (values.url !== undefined && values.data !== undefined) throw new UsageError('give --data or --url, not both');
  const keys = values.keys === undefined ? undefined : values.keys.split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (keys !== undefined && keys.length === 0) throw new UsageError('--keys needs at least one key name, e.g. --keys cursorSessionId');
  const dryRun = values['dry-run'] === true;
  const all = values.all === true;

  const target = values.url !== undefined ? remoteTarget(values.url, token!, all, values.sid) : await localTarget(values.data, all, values.sid);
  const verb = dryRun ? 'would restore' : 'restored';
  let checked = 0;
  let repaired = 0;
  try {
    for await (const sid of target.sids) {
      const result = await target.repair(sid, keys, dryRun);
      checked++;
      const restoredKeys = Object.keys(result.restored);
      if (restoredKeys.length > 0) {
        repaired++;
        const where = dryRun ? `at version ${result.version}` : `as version ${result.version}`;
        process.stdout.write(`${sid}: ${verb} ${restoredKeys.join(', ')} ${where}\n`);
      } else if (!all) {
        process.stdout.write(`${sid}: nothing to restore (version ${result.version})\n`);
      }
      // Progress for long runs, on stderr so stdout stays one line per repaired session.
      if (all && (checked % 100 === 0 || checked === target.total)) {
        process.stderr.write(`${dryRun ? 'would repair' : 'repaired'} ${repaired}/${checked} sessions checked (of ${target.total})…\n`);
      }
    }
  } finally {
    await target.close();
  }
  process.stdout.write(`${dryRun ? 'dry run: would repair' : 'repaired'} ${repaired} of ${checked} session(s)${dryRun ? '; nothing was written' : ''}\n`);
}
