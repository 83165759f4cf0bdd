/**
 * `session-hub webhook` (the real CLI, offline on the hub's database while the hub runs): add prints
 * the secret once and a running hub delivers with it; list, remove, resume; doctor shows a paused
 * webhook; usage mistakes exit 2 with a message naming the flag, and change nothing.
 */
import { describe, expect, it } from 'vitest';
import { listWebhooks } from '../../hub/store/webhooks.js';
import { runCli } from '../helpers/cli.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { closeReceiversAfterEach, startReceiver } from './receiver.js';

let hub: TestHub;
useTestHub((started) => {
  hub = started;
}, () => ({ config: { webhookPollMs: 20, webhookRetryMs: 50, webhookRetryMaxMs: 100, webhookPauseAfter: 2 } }));
closeReceiversAfterEach();

const cli = (...args: string[]) => runCli(['webhook', ...args, '--data', hub.dataDir]);

describe('session-hub webhook', () => {
  it('explains itself: actions, event names, formats', async () => {
    const help = await runCli(['webhook', '--help']);
    expect(help.code).toBe(0);
    for (const word of ['add --url URL', 'list', 'remove <id>', 'resume <id>', 'session-created', 'session-ended', 'session-archived', 'turn', 'attention', 'slack', 'X-Session-Hub-Signature']) {
      expect(help.stdout).toContain(word);
    }
    expect((await runCli(['--help'])).stdout).toContain('webhook');
  });

  it('adds a webhook a running hub delivers to with the printed secret; lists, removes it', { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    const added = await cli('add', '--url', receiver.url, '--events', 'session-created,session-ended', '--format', 'slack');
    expect(added.code, added.stderr).toBe(0);
    const id = /^(wh_[0-9a-f]{16})\s+default\s+active/m.exec(added.stdout)?.[1];
    const secret = /^secret: (whsec_\S+)$/m.exec(added.stdout)?.[1];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    expect(added.stderr).toContain('shown only now');
    receiver.secret = secret;

    const runner = await connectRunner(hub.url, hub.tokens.runner);
    await startSession(runner, { tag: 'from-the-cli' });
    await waitFor(() => receiver.posts.length === 1, 5000, 'the delivery');
    expect(receiver.posts[0]!.signed).toBe(true);
    expect(receiver.posts[0]!.body.text).toBe('Claude Code session "from-the-cli" started');

    const listed = await cli('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain(`POST ${receiver.url}  format slack  events session-created,session-ended`);
    expect(listed.stdout).not.toContain(secret);
    const json = JSON.parse((await cli('list', '--json')).stdout) as { webhooks: { id: string; delivered: number }[] };
    expect(json.webhooks).toMatchObject([{ id, delivered: 1 }]);

    expect(await cli('remove', id!)).toMatchObject({ code: 0, stdout: `removed webhook ${id}\n` });
    expect((await cli('list')).stdout).toBe('no webhooks\n');
  });

  // each CLI call is a process start: slow on a loaded machine
  it('shows a paused webhook in doctor; resume delivers what waited', { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    receiver.answer = () => 500;
    const added = JSON.parse((await cli('add', '--url', receiver.url, '--json')).stdout) as { webhook: { id: string }; secret: string };
    receiver.secret = added.secret;
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    await startSession(runner, { tag: 'waiting' });
    await waitFor(async () => (await listWebhooks(hub.deps.store)).some((w) => w.pausedAt !== null), 10_000, 'the webhook paused');

    const doctor = await runCli(['doctor', '--data', hub.dataDir]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('Webhooks needing attention (1)');
    expect(doctor.stdout).toMatch(new RegExp(`${added.webhook.id}  default  ${receiver.url}  paused since .* after 2 failed attempts; last error: HTTP 500 from the receiver`));
    expect(doctor.stdout).toContain('session-hub webhook resume <id>');
    const doctorJson = JSON.parse((await runCli(['doctor', '--json', '--data', hub.dataDir])).stdout) as { webhooks: { id: string }[] };
    expect(doctorJson.webhooks.map((w) => w.id)).toEqual([added.webhook.id]);

    receiver.answer = () => 200;
    expect((await cli('resume', added.webhook.id)).code).toBe(0);
    await waitFor(() => receiver.accepted().length > 0, 5000, 'the delivery after resume');
    expect(receiver.accepted().every((post) => post.signed)).toBe(true);
    expect((await runCli(['doctor', '--data', hub.dataDir])).stdout).not.toContain('Webhooks needing attention');
  });

  it('refuses usage mistakes with exit 2 and a message naming the flag, storing nothing', { timeout: 120_000 }, async () => {
    const cases: [string[], string][] = [
      [['add'], '--url is required'],
      [['add', '--url', 'ftp://example.com/x'], '--url: "ftp://example.com/x" must use http or https, not ftp'],
      [['add', '--url', 'example.com/hook'], '--url: "example.com/hook" is not an absolute URL'],
      [['add', '--url', 'http://'], '--url: "http://" is not an absolute URL'],
      [['add', '--url', 'https://example.com', '--events', 'session-created,explosion'], '--events: unknown event "explosion"'],
      [['add', '--url', 'https://example.com', '--events', ','], '--events is empty'],
      [['add', '--url', 'https://example.com', '--format', 'teams'], '--format must be json or slack, not "teams"'],
      [['add', '--url', 'https://example.com', '--namespace', 'bad name'], '--namespace: 1–64 letters'],
      [['remove'], "remove needs the webhook's id"],
      [['remove', 'wh_nope'], 'no webhook wh_nope'],
      [['resume', 'wh_nope'], 'no webhook wh_nope'],
      [['launch'], 'unknown action "launch"'],
      [['add', '--url', 'https://example.com', '--colour', 'red'], "Unknown option '--colour'"],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('session-hub webhook --help');
    }
    expect((await cli('list')).stdout).toBe('no webhooks\n');
    const noDatabase = await runCli(['webhook', 'list', '--data', '/nonexistent-dir']);
    expect(noDatabase.code).toBe(2);
    expect(noDatabase.stderr).toContain('no hub database');
  });
});
