/**
 * The page's dictionary (hub/dashboard/words.js) has a plain sentence for every code the protocol
 * defines and every reason the hub writes, so no code ever reaches the page as its text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ResumeUnavailableReasonSchema } from '../../shared/protocol/http.js';
import { SessionSourceSchema } from '../../shared/protocol/lifecycle.js';
import { LifecycleStateSchema, RunEndStatusSchema, RunStatusSchema, SessionActivitySchema, TurnStatusSchema, WriterSchema } from '../../shared/protocol/session.js';

const ROOT = join(import.meta.dirname, '..', '..');
type Table = Readonly<Record<string, string>>;
// plain JS under the page's CSP: loaded by URL (the TS project does not type-check the page)
const words = (await import(pathToFileURL(join(ROOT, 'hub', 'dashboard', 'words.js')).href)) as Record<string, Table> & {
  sayLifecycle(l: { state: string; reason: string | null }): { text: string; code: string };
};

/** Every reason string literal the hub's lifecycle code passes to a transition. */
function hubReasons(): string[] {
  const dir = join(ROOT, 'hub', 'lifecycle');
  const found = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const code = readFileSync(join(dir, file), 'utf8');
    for (const [, reason] of code.matchAll(/reason: '([a-z_]+)'/g)) found.add(reason!);
    for (const [, reason] of code.matchAll(/, '([a-z]+_[a-z_]+)', now\)/g)) found.add(reason!);
  }
  return [...found];
}

describe('the words of the page', () => {
  it.each([
    ['ACTIVITY', SessionActivitySchema.options],
    ['ACTIVITY_HELP', SessionActivitySchema.options],
    ['LIFECYCLE_STATE', LifecycleStateSchema.options],
    ['RUN_STATUS', RunStatusSchema.options],
    ['TURN_STATUS', TurnStatusSchema.options],
    ['WRITER', WriterSchema.options],
    ['REASON', SessionSourceSchema.options],
    ['RESUME', [...ResumeUnavailableReasonSchema.options, 'run_in_progress', ...RunEndStatusSchema.exclude(['success']).options.map((s) => `last_run_${s}`)]],
  ] as const)('%s has a sentence for every code', (table, codes) => {
    for (const code of codes) expect(words[table]?.[code], `${table}.${code}`).toMatch(/\w/);
  });

  it('has a sentence for every reason the hub writes, and for the end reasons agents send', () => {
    const reasons = [...hubReasons(), 'completed', 'terminated', 'cancelled', 'error', 'crashed', 'prompt_input_exit', 'logout', 'clear', 'other'];
    expect(hubReasons()).toEqual(expect.arrayContaining(['runner_lost', 'runner_silent', 'no_activity', 'superseded_by_new_run']));
    for (const reason of reasons) expect(words.REASON?.[reason], `REASON.${reason}`).toMatch(/\w/);
  });

  it('says a lifecycle as a sentence, keeping the codes for the tooltip; a typed reason stays as typed', () => {
    expect(words.sayLifecycle({ state: 'ended', reason: 'prompt_input_exit' })).toEqual({ text: 'Ended: the user left the agent', code: 'ended · prompt_input_exit' });
    expect(words.sayLifecycle({ state: 'archived', reason: 'done with it' })).toEqual({ text: 'Archived: done with it', code: 'archived' });
  });
});
