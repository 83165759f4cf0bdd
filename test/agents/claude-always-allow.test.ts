/**
 * "Always allow this here" with the real Claude Code CLI (pinned), interactive in a
 * pseudo-terminal, against the scripted model server: the Bash call it asks about carries its own
 * suggested rule (`permission_suggestions`); a person allows it from the hub with `always`, the
 * hook hands the rule back as `updatedPermissions`, and Claude Code saves it as its own "Yes, and
 * don't ask again" does: the rule is in the project's local settings afterwards.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import { useAgentHub } from './helpers/agent-hub.js';
import { startAnthropicServer } from './helpers/anthropic-server.js';
import { claudeInteractive, claudeProject, recordedPayloads } from './helpers/claude.js';

const agent = useAgentHub();
const { env, view } = agent;
const COMMAND = 'node -e "require(\'fs\').writeFileSync(\'always.txt\', \'\')"';

describe('claude (interactive) and "always allow this here" from the hub', () => {
  it('the rule Claude Code suggested is saved by Claude Code itself after an allow with always', async () => {
    const model = await agent.model(startAnthropicServer({ tools: [{ name: 'Bash', input: { command: COMMAND, description: 'Make a file' } }], finalText: 'All done.' }));
    const project = await agent.project(claudeProject({ modelUrl: model.url, hubEnv: env(), record: true }));
    let sid: string | undefined;
    let offered: Approval | undefined;
    const ready = async () => {
      sid ??= (await view.sessions()).find((s) => s.flavor === 'claude')?.sid;
      if (sid === undefined) return false;
      if (offered === undefined) {
        const pending = (await view.approvals(sid)).find((a) => a.status === 'pending');
        if (pending === undefined) return false;
        offered = pending;
        const response = await fetch(`${agent.hub().url}/api/sessions/${sid}/approvals/${pending.approvalId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.hub().tokens.operator}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'allow', always: pending.alwaysOffer !== null }),
        });
        expect(response.status, await response.text()).toBe(200);
      }
      return (await view.turns(sid)).at(-1)?.status === 'completed';
    };
    const run = await claudeInteractive(project, 'Make a file with node, please', ready);
    expect(run.code, run.screen.slice(-2000)).toBe(0);
    expect(existsSync(join(project.dir, 'always.txt'))).toBe(true);

    const asked = recordedPayloads(project).find((p) => p.hook_event_name === 'PermissionRequest')!;
    const suggestions = (asked.permission_suggestions ?? []) as { type: string; behavior?: string; rules?: { toolName: string; ruleContent?: string }[] }[];
    const allowRules = suggestions.filter((s) => s.type === 'addRules' && s.behavior === 'allow');
    expect(allowRules.length, JSON.stringify(suggestions)).toBeGreaterThan(0);
    expect(offered!.alwaysOffer).toMatchObject(allowRules);
    const rule = allowRules[0]!.rules![0]!;
    const text = rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
    const local = JSON.parse(readFileSync(join(project.dir, '.claude', 'settings.local.json'), 'utf8')) as { permissions?: { allow?: string[] } };
    // Claude Code writes the rule's content with its parentheses escaped (require\('fs'\))
    const saved = (local.permissions?.allow ?? []).map((r) => r.replace(/^(\w+)\((.*)\)$/s, (_, tool: string, content: string) => `${tool}(${content.replace(/\\([()])/g, '$1')})`));
    expect(saved).toEqual([text]);
  }, 150_000);
});
