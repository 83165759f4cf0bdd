/**
 * Machines from a phone (docs/machines.md), in Chromium at 390 px against a real hub and a real
 * Socket.IO peer registered as a machine runner (test/machines/machine-peer.ts): the Machines view
 * lists it, New session picks a directory through machine-dirs and starts an agent, the session
 * offers Interrupt and Stop while it runs, and Continue once it ended; a refusal shows why.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { connectMachine } from '../machines/machine-peer.js';
import { signIn, useDashboardPages } from './browser.js';

let hub: TestHub;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ page } = opened),
});

const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe('machines on the page', () => {
  it('starts an agent from the phone, stops it, and continues it after it ended', async () => {
    const peer = await connectMachine(hub.url, hub.tokens.machine, { name: 'phone-test laptop' });
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.locator('#nav-machines').click();
    const listed = page.locator(`li.machine[data-machine="${peer.register.machineId}"]`);
    await listed.waitFor();
    expect(await listed.getAttribute('data-online')).toBe('true');
    // the agent's version as a person reads it (the peer registers what claude --version prints)
    expect(await listed.textContent()).toMatch(/Agents: Claude Code 2\.1\.197(?! \(Claude Code\))/);
    expect(await page.locator('#new-mode option[value="bypassPermissions"]').count()).toBe(0);

    // the directory picker lists the root's subdirectories through the runner
    await page.locator('.dir[data-dir="api"]').click();
    expect(await page.locator('#new-path').inputValue()).toBe('/home/alice/code/api');
    await page.locator('#new-prompt').fill('write the tests');
    expect(await noSideScroll()).toBe(true);
    await page.locator('#new-start').click();
    await page.waitForURL(/#\/s\//);
    const spawn = peer.received.find((entry) => entry.event === 'machine-spawn')!;
    expect(spawn.payload).toMatchObject({ flavor: 'claude', path: '/home/alice/code/api', prompt: 'write the tests', permissionMode: 'default' });
    const sid = decodeURIComponent(page.url().split('#/s/')[1]!);

    await page.locator('#stop').click();
    await page.locator('#machine-outcome', { hasText: 'Stopped' }).waitFor();
    expect(peer.received.at(-1)).toMatchObject({ event: 'machine-stop', payload: { sid } });

    // stopped: the run ended cancelled; before any click the card says where it would run, that it
    // is not safe and why, and offers Continue anyway (issue 46.5)
    await page.locator('#continue-unsafe').waitFor();
    expect(await page.locator('#continue-unsafe').textContent()).toBe("Can't resume safely: the last run was cancelled: its conversation may end mid-turn (a run stopped or cut off while it worked). Continue anyway resumes it as it was left.");
    await page.locator('#continue-where[data-place="ok"]').waitFor();
    expect(await page.locator('#continue-where').textContent()).toContain(`on ${peer.register.host} starts Claude Code again in /home/alice/code/api`);
    expect(await page.locator('#continue').count()).toBe(0);
    await page.locator('#continue-force').click();
    await page.locator('#machine-outcome', { hasText: 'Continuing anyway' }).waitFor();
    expect(peer.received.filter((entry) => entry.event === 'machine-spawn').at(-1)!.payload).toMatchObject({ resume: { sid } });
    expect(await noSideScroll()).toBe(true);

    // the runner gone: the card says Continue is not possible and why, and offers nothing to click
    await peer.socket.emitWithAck('session-end', { sid, reason: 'completed', status: 'success' });
    peer.socket.disconnect();
    await page.locator('#continue-where[data-place="refused"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('#continue-where').textContent()).toMatch(/^Continue is not possible now: machine ".*" that ran this session is not connected|^Continue is not possible now: .*not connected/);
    for (const button of await page.locator('#continue, #continue-force').all()) expect(await button.isDisabled()).toBe(true);
  });

  it('offers no Interrupt or Stop on a live terminal session, though its hooks name the machine', async () => {
    const peer = await connectMachine(hub.url, hub.tokens.machine, { name: 'terminal-test laptop' });
    const tag = `terminal-${randomUUID()}`;
    // a terminal Claude Code's SessionStart as its hook bridge sends it, on the machine's computer
    const response = await fetch(`${hub.url}/api/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hub.tokens.agent}` },
      body: JSON.stringify({ events: [{ id: randomUUID(), flavor: 'claude', firedAt: Date.now(), seq: 0, host: peer.register.host, machineId: peer.register.machineId,
        payload: { hook_event_name: 'SessionStart', session_id: tag, cwd: '/home/alice/code/api', source: 'startup', transcript_path: '/nowhere.jsonl' } }] }),
    });
    expect(response.status).toBe(200);
    const listed = await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    const session = ((await listed.json()) as { sessions: SessionSnapshot[] }).sessions.find((s) => s.tag === tag)!;
    expect(session.metadata.value).toMatchObject({ machineId: peer.register.machineId, drivenBy: 'terminal' });
    expect(session.lifecycle.lastRun?.status).toBe('running');

    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.goto(`${hub.url}/#/s/${encodeURIComponent(session.sid)}`);
    // the actions render with the rest of the detail: once its approvals panel is there, they would be
    await page.locator('#detail #session-approvals').waitFor();
    expect(await page.locator('#stop').count()).toBe(0);
    expect(await page.locator('#interrupt').count()).toBe(0);
  });

  it('shows a runner started while the page is open, and says why Start is off when it found no agent', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.locator('#nav-machines').click();
    await page.locator('section.machines h2').waitFor();
    // the runner comes online after the view was read: it appears without a reload
    const peer = await connectMachine(hub.url, hub.tokens.machine2, { name: 'agentless box', agents: [] });
    await page.locator(`li.machine[data-machine="${peer.register.machineId}"][data-online="true"]`).waitFor({ timeout: 15_000 });
    await page.locator('#new-machine').selectOption(peer.register.machineId);
    expect(await page.locator('#new-no-agent').textContent()).toMatch(/no agent to start/);
    expect(await page.locator('#new-start').isDisabled()).toBe(true);
  });

  it('forgets an offline machine from its card (operator); an online one offers no Forget', async () => {
    const peer = await connectMachine(hub.url, hub.tokens.machine, { name: 'old laptop' });
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, hub.url, hub.tokens.operator);
    await page.locator('#nav-machines').click();
    const card = page.locator(`li.machine[data-machine="${peer.register.machineId}"]`);
    await card.locator('xpath=self::*[@data-online="true"]').waitFor({ timeout: 15_000 });
    expect(await card.locator('button.forget-machine').count()).toBe(0);
    peer.socket.disconnect();
    await card.locator('button.forget-machine').waitFor({ timeout: 15_000 });
    page.once('dialog', (dialog) => void dialog.accept());
    await card.locator('button.forget-machine').click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    const listed = await fetch(`${hub.url}/api/machines`, { headers: { authorization: `Bearer ${hub.tokens.operator}` } }).then((r) => r.json() as Promise<{ machines: { machineId: string }[] }>);
    expect(listed.machines.map((machine) => machine.machineId)).not.toContain(peer.register.machineId);
  });
});
