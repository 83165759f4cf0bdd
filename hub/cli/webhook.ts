import { parseArgs } from 'node:util';
import {
  WEBHOOK_EVENT_NAMES,
  WebhookEventNameSchema,
  WebhookFormatSchema,
  webhookUrlProblem,
  type Webhook,
  type WebhookEventName,
} from '../../shared/protocol/webhooks.js';
import { createWebhook, removeWebhook, unpauseWebhook } from '../services/webhooks.js';
import { listWebhooks } from '../store/webhooks.js';
import { age, openExistingStore, UsageError, withUsageErrors } from './offline.js';

export const WEBHOOK_HELP = `session-hub webhook add --url URL [--namespace NAME] [--events LIST] [--format json|slack] [--json] [--data DIR]
session-hub webhook list [--namespace NAME] [--json] [--data DIR]
session-hub webhook remove <id> [--data DIR]
session-hub webhook resume <id> [--data DIR]

add     POSTs the namespace's events to URL from now on, in order, at least once. Prints the
        webhook's id and its secret, once: the receiver checks each POST's
        X-Session-Hub-Signature (sha256=<hex HMAC-SHA256 of the raw body>) with it.
list    every webhook (or one namespace's): state, cursor, deliveries, last error; never a secret.
remove  stops and deletes a webhook.
resume  restarts a webhook paused after failing too long, from the first event it did not deliver
        (also clears its count of events lost to retention, which doctor reports).

Options:
  --url <url>          where to POST (http:// or https:// with a host)
  --namespace <name>   the tenant namespace (add: default "default"; list: all when omitted)
  --events <list>      comma-separated, default all:
                         session-created   a session started
                         session-ended     a session ended
                         session-archived  a session was archived
                         turn              a turn opened or closed
                         attention         a session needs you (permission, question, done, failed)
                         all               every event, including presence and metadata changes
  --format <format>    json (default): the event with its id, seq and body;
                       slack: {"text": "..."}, one readable line, for Slack, Mattermost and
                       Discord incoming webhooks (Discord: add /slack to its webhook URL)
  --json               print JSON (for scripts)
  --data <dir>         the hub's data directory (SESSION_HUB_DATA, default ./data); with
                       SESSION_HUB_DATABASE_URL set, that PostgreSQL database instead
  -h, --help           show this help

A running hub picks up changes within a second. Admins can do the same over HTTP:
GET/POST /api/webhooks, DELETE /api/webhooks/:id, POST /api/webhooks/:id/resume (docs/attention.md).`;

function parseEvents(list: string | undefined): WebhookEventName[] {
  if (list === undefined) return ['all'];
  const names = list.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new UsageError(`--events is empty; name one or more of ${WEBHOOK_EVENT_NAMES.join(', ')}`);
  return names.map((name) => {
    const parsed = WebhookEventNameSchema.safeParse(name);
    if (!parsed.success) throw new UsageError(`--events: unknown event "${name}"; use ${WEBHOOK_EVENT_NAMES.join(', ')}`);
    return parsed.data;
  });
}

function stateOf(webhook: Webhook, now: number): string {
  if (webhook.pausedAt !== null) return `paused ${age(now - webhook.pausedAt)} ago after ${webhook.failures} failures`;
  if (webhook.failures > 0) return `failing (${webhook.failures} in a row, next try in ${age(Math.max(0, webhook.nextAttemptAt - now))})`;
  return 'active';
}

function describeWebhook(webhook: Webhook, now: number): string {
  const lines = [
    `${webhook.id}  ${webhook.namespace}  ${stateOf(webhook, now)}`,
    `  POST ${webhook.url}  format ${webhook.format}  events ${webhook.events.join(',')}`,
    `  delivered ${webhook.delivered}${webhook.lastDeliveredAt === null ? '' : ` (last ${age(now - webhook.lastDeliveredAt)} ago)`}, cursor at seq ${webhook.cursorSeq}, created ${new Date(webhook.createdAt).toISOString()}`,
  ];
  if (webhook.lostEvents > 0) lines.push(`  lost ${webhook.lostEvents} event(s) to retention before delivery`);
  if (webhook.lastError !== null) lines.push(`  last error: ${webhook.lastError}`);
  return lines.join('\n');
}

export function webhookCommand(argv: string[]): Promise<void> {
  return withUsageErrors('webhook', () => webhook(argv));
}

async function webhook(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      namespace: { type: 'string' },
      events: { type: 'string' },
      format: { type: 'string' },
      json: { type: 'boolean' },
      data: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [action, id, ...extra] = positionals;
  if (values.help || action === undefined) {
    process.stdout.write(`${WEBHOOK_HELP}\n`);
    return;
  }
  if (!['add', 'list', 'remove', 'resume'].includes(action)) throw new UsageError(`unknown action "${action}"; use add, list, remove or resume`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if ((action === 'remove' || action === 'resume') && id === undefined) throw new UsageError(`${action} needs the webhook's id (session-hub webhook list shows them)`);
  if ((action === 'add' || action === 'list') && id !== undefined) throw new UsageError(`unexpected argument "${id}"`);
  // every usage mistake is found before the database is opened
  let create: { url: string; namespace: string; events: WebhookEventName[]; format: 'json' | 'slack' } | undefined;
  if (action === 'add') {
    if (values.url === undefined) throw new UsageError('--url is required: where to POST (http:// or https://)');
    const problem = webhookUrlProblem(values.url);
    if (problem !== null) throw new UsageError(`--url: ${problem}`);
    const format = WebhookFormatSchema.safeParse(values.format ?? 'json');
    if (!format.success) throw new UsageError(`--format must be json or slack, not "${values.format}"`);
    const namespace = values.namespace ?? 'default';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) throw new UsageError('--namespace: 1–64 letters, digits, "_", "." or "-"');
    create = { url: values.url, namespace, events: parseEvents(values.events), format: format.data };
  }

  const { store } = await openExistingStore(values.data);
  try {
    const now = Date.now();
    if (create) {
      const created = await createWebhook(store, { ...create, now });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${describeWebhook(created.webhook, now)}\nsecret: ${created.secret}\n`);
      process.stderr.write('the secret is shown only now: give it to the receiver, which checks X-Session-Hub-Signature with it\n');
      return;
    }
    if (action === 'list') {
      const webhooks = await listWebhooks(store, values.namespace);
      if (values.json) process.stdout.write(`${JSON.stringify({ webhooks }, null, 2)}\n`);
      else process.stdout.write(webhooks.length === 0 ? 'no webhooks\n' : `${webhooks.map((w) => describeWebhook(w, now)).join('\n')}\n`);
      return;
    }
    if (action === 'remove') {
      if (!(await removeWebhook(store, { id: id! }))) throw new UsageError(`no webhook ${id} (session-hub webhook list shows them)`);
      process.stdout.write(`removed webhook ${id}\n`);
      return;
    }
    const resumed = await unpauseWebhook(store, { id: id! });
    if (!resumed) throw new UsageError(`no webhook ${id} (session-hub webhook list shows them)`);
    process.stdout.write(`resumed webhook ${id}; a running hub retries it within a second\n`);
  } finally {
    await store.close();
  }
}
