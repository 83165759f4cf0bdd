// @ts-check
/** One turn as a timeline: the prompt, each tool use and the agent's words between them, its closing message, and how long it took. */
import { html } from '../html.js';
import { absoluteTime, duration, truncate } from '../format.js';
import { TURN_STATUS, say } from '../words.js';
import { ClampedText } from './clamped-text.js';
import { timelineSteps } from '../timeline-steps.js';
import { ToolLine } from './tool-line.js';
import { Word } from './word.js';

/** The agent's words between tool lines show this much before "show all": the timeline stays scannable on a phone. */
const SAID_CLAMP_CHARS = 320;

/**
 * @param {{ turn: import('../../../shared/protocol/session.js').TurnWithActivity, now: number,
 *   approvals: readonly import('../../../shared/protocol/attention.js').Approval[] }} props
 */
export function TurnItem({ turn, now, approvals }) {
  const end = turn.closedAt ?? now;
  const steps = timelineSteps(turn.activities ?? [], turn.texts ?? [], turn.response);
  return html`<li class="turn" data-turn=${turn.turnId} data-status=${turn.status}>
    <div class="turn-head">
      <${Word} said=${say(TURN_STATUS, turn.status)} class=${`turn-status turn-${turn.status}`} />
      ${turn.kind === 'recovery' && html`<span class="badge" title="Tool use that came with no open turn">no prompt</span>`}
      <span class="muted" title=${absoluteTime(turn.openedAt)}>${absoluteTime(turn.openedAt)}</span>
      <span class="turn-duration" title=${turn.closedAt == null ? 'open for' : 'took'}>${turn.closedAt == null ? `${duration(end - turn.openedAt)} so far` : duration(end - turn.openedAt)}</span>
      <span class="muted">${turn.activityCount} tool ${turn.activityCount === 1 ? 'use' : 'uses'}</span>
    </div>
    ${turn.prompt != null &&
    html`<div class="step prompt-step">
      <span class="step-label">Prompt</span>
      <details class="prompt">
        <summary>${truncate(turn.prompt, 200) || '(empty prompt)'}${turn.promptTruncated ? ' (cut by the hub)' : ''}</summary>
        <${ClampedText} tag="pre" class="text" text=${turn.prompt} />
      </details>
    </div>`}
    ${steps.length > 0 &&
    html`<ol class="tools">
      ${steps.map((step, i) =>
        step.kind === 'tool'
          ? html`<${ToolLine} key=${step.activity.activityId} activity=${step.activity} approvals=${approvals} now=${now} />`
          : html`<li key=${`said-${i}`} class="said" data-said=${i}>
              <${ClampedText} tag="pre" class="text" text=${step.said.text} max=${SAID_CLAMP_CHARS} />
            </li>`,
      )}
    </ol>`}
    ${turn.response != null &&
    html`<div class="step response-step">
      <span class="step-label">Agent</span>
      <div class="response"><${ClampedText} tag="pre" class="text" text=${turn.response} /></div>
    </div>`}
  </li>`;
}
