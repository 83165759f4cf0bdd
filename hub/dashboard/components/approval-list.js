// @ts-check
/**
 * A session's tool approvals (docs/attention.md): each pending one with its tool, its whole input
 * (wrapped, scrolling when long: a person sees the whole command before allowing it), its folder,
 * the time left before the agent asks in its terminal instead (a machine runner's: before it asks again), and Allow / Deny for the roles that
 * decide (operator, admin), with a reason to deny typed beside them (the agent reads it) and, where the
 * agent suggested a rule, "Always allow <rule> here" (it keeps allowing it); others read "waiting for approval" and which token would let them
 * decide. A click decides at once, and the card then says what was decided and by whom (the token's
 * label). Ended approvals show who decided, when and why. Fetched over HTTP, then kept current by
 * the live `approval` bodies.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { rememberDecision } from '../decided-here.js';
import { displayPath, duration, messageOf } from '../format.js';
import { useNow } from '../hooks.js';
import { toolInputText } from '../tools.js';
import { PathText } from './path-text.js';
import { RelTime } from './rel-time.js';

/** @typedef {import('../../../shared/protocol/attention.js').Approval} Approval */

/** The longest reason to deny the hub takes (shared/protocol/session.ts ATTENTION_MESSAGE_MAX_CHARS). */
const REASON_MAX_CHARS = 4096;


const OUTCOME = Object.freeze({
  pending: 'waiting for approval',
  allowed: 'allowed',
  denied: 'denied',
  expired: 'went back to the terminal: nobody decided here in time',
  superseded: 'answered in the agent’s terminal',
  abandoned: 'the agent stopped waiting (its hook ended): it asks in its terminal',
  cancelled: 'closed: the tool did not run',
  interrupted: 'the hub restarted before anyone decided: the agent’s hook asks again once it is back',
});

/** The same for an approval a machine runner waits on: when its wait is over it asks the hub again. */
const RUNNER_OUTCOME = Object.freeze({
  ...OUTCOME,
  expired: 'nobody decided in time: the runner asked again',
  abandoned: 'the runner stopped waiting (its connection closed or the run ended)',
  interrupted: 'the hub restarted before anyone decided: the runner asked again',
});

/** @type {Map<string, Set<string>>} approvals seen pending on this page, by session */
const SEEN_PENDING = new Map();
/** @param {string} sid */
function seenPendingOf(sid) {
  let seen = SEEN_PENDING.get(sid);
  if (!seen) SEEN_PENDING.set(sid, (seen = new Set()));
  return seen;
}

/**
 * How an approval ended, in words (a runner's asks again where a hook's goes back to its terminal).
 * @param {Approval} a
 */
export function outcomeWords(a) {
  return /** @type {Record<string, string>} */ (a.askedBy === 'runner' ? RUNNER_OUTCOME : OUTCOME)[a.status] ?? a.status;
}

/**
 * Who decided: the token's label, else its id.
 * @param {Approval} a
 */
export function decider(a) {
  if (a.decidedByLabel) return html` by <span class="decided-by">${a.decidedByLabel}</span>`;
  return a.decidedBy ? html` by token <code class="decided-by">${a.decidedBy}</code>` : null;
}

/**
 * What a decided or otherwise ended approval came to, with who and when.
 * @param {{ a: Approval, now: number }} props
 */
export function ApprovalOutcome({ a, now }) {
  return html`<div class="approval-outcome" data-outcome=${a.status}>
    <strong>${outcomeWords(a)}</strong>${decider(a)}
    ${a.decidedAt && html` <${RelTime} at=${a.decidedAt} now=${now} />`}
    ${a.always && a.alwaysOffer && html`<span class="approval-always"> · from now on: ${rulesText(a.alwaysOffer)}</span>`}
    ${a.message && html`<span class="approval-message">: ${a.message}</span>`}
    ${a.answers && html`<span class="approval-answers">: ${Object.values(a.answers).join('; ')}</span>`}
  </div>`;
}

/**
 * The rules an approval offers to keep allowing, as the agent writes them (`Bash(npm test)`).
 * @param {NonNullable<Approval['alwaysOffer']>} offer
 */
function rulesText(offer) {
  return offer.flatMap((u) => u.rules.map((r) => (r.ruleContent === undefined ? r.toolName : `${r.toolName}(${r.ruleContent})`))).join(', ');
}

/**
 * Text that wraps at spaces only: each run of non-space characters (a path, a flag, `session-hub`)
 * is kept on one line — the browser would otherwise break after a hyphen or slash inside it.
 * @param {string} text
 */
function wordsOf(text) {
  return text.split(/(\s+)/).map((part, i) => (i % 2 === 1 || part === '' ? part : html`<span class="word">${part}</span>`));
}

/**
 * Ended without a decision here while the session still waits: the agent asks in its terminal now.
 * @param {Approval} a
 * @param {number} since
 */
function wentBack(a, since) {
  // a runner's approval never goes back to a terminal: it is asked again, as a new pending approval
  return a.askedBy !== 'runner' && (a.status === 'expired' || a.status === 'abandoned') && (a.decidedAt ?? 0) >= since;
}

/**
 * The time left to decide here, or that it is over.
 * @param {{ a: Approval, now: number }} props
 */
function TimeLeft({ a, now }) {
  if (a.expiresAt == null) return null;
  const left = a.expiresAt - now;
  const then = a.askedBy === 'runner' ? 'the runner asks again' : 'the agent asks in its terminal';
  return left > 0
    ? html`<span class="approval-left" data-left-ms=${left}>${duration(Math.ceil(left / 1000) * 1000)} left, then ${then}</span>`
    : html`<span class="approval-left approval-left-over">time is up: ${then}</span>`;
}

/**
 * Pending first (oldest first), then the ended ones (latest end first), as the hub lists them.
 * @param {Approval[]} approvals
 */
function ordered(approvals) {
  const pending = approvals.filter((a) => a.status === 'pending').sort((a, b) => a.createdAt - b.createdAt);
  const ended = approvals.filter((a) => a.status !== 'pending').sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0));
  return [...pending, ...ended];
}

/**
 * The fetched approvals merged with those held: an ended one beats a pending copy (a status only
 * moves on from pending), else the held one (it came live, as new or newer).
 * @param {Approval[]} held
 * @param {Approval[]} fetched
 */
function merge(held, fetched) {
  const byId = new Map(held.map((a) => [a.approvalId, a]));
  for (const a of fetched) {
    const mine = byId.get(a.approvalId);
    if (!mine || (mine.status === 'pending' && a.status !== 'pending')) byId.set(a.approvalId, a);
  }
  return [...byId.values()];
}

/**
 * The approvals of one session, live.
 * @param {import('../api.js').Api} api
 * @param {import('../sessions.js').SessionView} store
 * @param {string} sid
 */
export function useApprovals(api, store, sid) {
  const [approvals, setApprovals] = useState(/** @type {Approval[] | null} */ (null));
  const [error, setError] = useState('');
  useEffect(() => {
    let closed = false;
    const stop = store.onApproval((approval) => approval.sid === sid && put(approval));
    const fetchAll = () =>
      api.approvals(sid).then(
        // what came live meanwhile is as new as the fetched list, or newer
        (body) => closed || setApprovals((live) => ordered(merge(live ?? [], body.approvals))),
        (err) => closed || setError(messageOf(err)),
      );
    fetchAll();
    // after a reconnect or resync, approvals may have opened or ended unseen: fetch them again
    const stopReset = store.subscribe((change) => change.kind === 'reset' && store.client && fetchAll());
    return () => {
      closed = true;
      stop();
      stopReset();
    };
  }, [api, store, sid]);
  return { approvals, error, put };

  /** @param {Approval} approval */
  function put(approval) {
    setApprovals((list) => ordered([...(list ?? []).filter((a) => a.approvalId !== approval.approvalId), approval]));
  }
}

/**
 * @param {{ sid: string, store: import('../sessions.js').SessionView, api: import('../api.js').Api, role: string | null,
 *   hub?: import('../format.js').HubHost | null, now: number, showEnded?: boolean, keep?: string[], since?: number }} props
 *   `showEnded`: the detail shows every ended one too; a needs-you row shows the pending ones, those in `keep` (decided on this
 *   page a moment ago) and those that went back to the terminal since the session started waiting (`since`);
 *   with `showEnded`, those already ended when the page first saw them are folded ("3 decided"): a
 *   phone's first screen is what waits, not the history (issue 46)
 */
export function ApprovalList({ sid, store, api, role, hub = null, now, showEnded = false, keep = [], since = Infinity }) {
  const { approvals, error, put } = useApprovals(api, store, sid);
  // pending while this page showed them: their outcome stays in sight once decided (kept per
  // session for the page's life: the panel moves, and so mounts anew, when the approval is decided)
  const seenPending = seenPendingOf(sid);
  for (const a of approvals ?? []) if (a.status === 'pending') seenPending.add(a.approvalId);
  const [deciding, setDeciding] = useState(/** @type {Record<string, string>} */ ({}));
  // what a person typed as the reason to deny, per approval: the agent reads it (Claude Code tells the model why)
  const [reasons, setReasons] = useState(/** @type {Record<string, string>} */ ({}));
  // a countdown ticks every second; `now` from the caller may tick slower
  const tick = useNow(1000);
  const at = Math.max(now, tick);
  const canDecide = mayDecide(role);

  /**
   * @param {Approval} approval @param {'allow' | 'deny'} decision @param {Record<string, string>} [answers] an agent's question answered
   * @param {boolean} [always] allow with the rules the approval offers ("always allow this here")
   */
  async function decide(approval, decision, answers, always = false) {
    setDeciding((d) => ({ ...d, [approval.approvalId]: '' }));
    const reason = decision === 'deny' ? (reasons[approval.approvalId] ?? '').trim() : '';
    try {
      const decided = await api.decide(sid, approval.approvalId, decision, answers ? { answers } : reason ? { message: reason } : always ? { always } : {});
      put(decided);
      rememberDecision(decided);
      setDeciding(({ [approval.approvalId]: _, ...rest }) => rest);
    } catch (err) {
      // a 409 (decided elsewhere, expired) says what happened; the live body brings the outcome
      setDeciding((d) => ({ ...d, [approval.approvalId]: messageOf(err) }));
      api.approvals(sid).then((body) => body.approvals.forEach(put), () => {});
    }
  }

  if (error) return html`<p class="error approvals-error">Approvals could not be loaded: ${error}</p>`;
  if (!approvals) return null;
  const shown = showEnded ? approvals : approvals.filter((a) => a.status === 'pending' || a.approvalId in deciding || keep.includes(a.approvalId) || wentBack(a, since));
  if (!shown.length) return showEnded ? html`<p class="muted">No tool approvals asked.</p>` : null;
  const folded = showEnded ? shown.filter((a) => a.status !== 'pending' && !seenPending.has(a.approvalId) && !(a.approvalId in deciding)) : [];
  const open = shown.filter((a) => !folded.includes(a));
  const card = (/** @type {Approval} */ a) => html`<li class="approval" key=${a.approvalId} data-approval-id=${a.approvalId} data-status=${a.status}>
      ${questionsOf(a.input)
        ? null
        : html`<div class="approval-what">
            <span class="approval-tool">${a.tool}</span>
            ${a.inputTruncated && html`<span class="muted approval-cut">input over 64 KiB: the hub kept its first 64 KiB</span>`}
          </div>`}
      ${planOf(a.input) !== null
        ? html`<pre class="approval-plan">${planOf(a.input)}</pre>`
        : questionsOf(a.input) ? null : html`<pre class="approval-input" tabindex="0">${wordsOf(toolInputText(a.tool, a.input))}</pre>`}
      ${a.cwd && html`<div class="approval-cwd muted">in <${PathText} path=${displayPath(a.cwd, store.get(sid)?.metadata.value ?? {}, hub)} title=${a.cwd} /></div>`}
      ${a.status === 'pending' && questionsOf(a.input)
        ? html`<${QuestionForm} approval=${a} canDecide=${canDecide} busy=${deciding[a.approvalId] === ''}
            onAnswer=${(/** @type {Record<string, string>} */ answers) => decide(a, 'allow', answers)} onDeny=${() => decide(a, 'deny')} />`
        : a.status === 'pending'
        ? canDecide
          ? html`<div class="approval-actions">
              <button type="button" class="allow" data-decision="allow" disabled=${deciding[a.approvalId] === ''} onClick=${() => decide(a, 'allow')}>Allow</button>
              <button type="button" class="deny" data-decision="deny" disabled=${deciding[a.approvalId] === ''} onClick=${() => decide(a, 'deny')}>Deny</button>
              ${a.alwaysOffer && html`<button type="button" class="allow always" data-decision="always" disabled=${deciding[a.approvalId] === ''}
                onClick=${() => decide(a, 'allow', undefined, true)}>Always allow ${rulesText(a.alwaysOffer)} here</button>`}
              <span class="muted">asked <${RelTime} at=${a.createdAt} now=${at} /></span>
              <${TimeLeft} a=${a} now=${at} />
              <input type="text" class="deny-reason" aria-label="Why deny (the agent reads it)" placeholder="Why deny? (optional: the agent reads it)"
                maxlength=${REASON_MAX_CHARS} value=${reasons[a.approvalId] ?? ''} disabled=${deciding[a.approvalId] === ''}
                onInput=${(/** @type {InputEvent} */ e) => setReasons((r) => ({ ...r, [a.approvalId]: /** @type {HTMLInputElement} */ (e.currentTarget).value }))} />
            </div>`
          : html`<div class="approval-outcome muted">
              waiting for approval (asked <${RelTime} at=${a.createdAt} now=${at} />) <${TimeLeft} a=${a} now=${at} />
              <span class="approval-who">To allow or deny it here, sign in with an admin or operator token.</span>
            </div>`
        : html`<${ApprovalOutcome} a=${a} now=${at} />`}
      ${deciding[a.approvalId] && html`<p class="error">${deciding[a.approvalId]}</p>`}
    </li>`;
  return html`${open.length > 0 && html`<ul class="approvals">${open.map(card)}</ul>`}
    ${folded.length > 0 && html`<details class="decided-fold"><summary>${folded.length} ${folded.every((a) => a.status === 'allowed' || a.status === 'denied') ? 'decided' : 'earlier'}</summary><ul class="approvals">${folded.map(card)}</ul></details>`}`;
}

/**
 * The questions an approval carries (Claude Code's AskUserQuestion input), or null.
 * @param {unknown} input
 * @returns {{ question: string, header: string, options: { label: string, description: string }[], multiSelect: boolean }[] | null}
 */
function questionsOf(input) {
  const questions = input && typeof input === 'object' && !Array.isArray(input) ? /** @type {any} */ (input).questions : undefined;
  if (!Array.isArray(questions)) return null;
  return questions.map((/** @type {any} */ q) => ({
    question: String(q?.question ?? ''),
    header: String(q?.header ?? ''),
    options: (Array.isArray(q?.options) ? q.options : []).map((/** @type {any} */ o) => ({ label: String(o?.label ?? ''), description: String(o?.description ?? '') })),
    multiSelect: q?.multiSelect === true,
  }));
}

/** The plan an approval carries (Claude Code's ExitPlanMode input), or null. @param {unknown} input */
function planOf(input) {
  const plan = input && typeof input === 'object' && !Array.isArray(input) ? /** @type {any} */ (input).plan : undefined;
  return typeof plan === 'string' ? plan : null;
}

/**
 * An agent's questions with their options as buttons: a single-choice question is answered by one
 * tap; a multiple-choice one by toggling options. With every question answered, the answers go.
 * @param {{ approval: Approval, canDecide: boolean, busy: boolean, onAnswer: (answers: Record<string, string>) => void, onDeny: () => void }} props
 */
function QuestionForm({ approval, canDecide, busy, onAnswer, onDeny }) {
  const questions = questionsOf(approval.input) ?? [];
  const [picked, setPicked] = useState(/** @type {Record<string, string[]>} */ ({}));
  const complete = (/** @type {Record<string, string[]>} */ chosen) => questions.every((q) => (chosen[q.question] ?? []).length > 0);
  const answersOf = (/** @type {Record<string, string[]>} */ chosen) => Object.fromEntries(questions.map((q) => [q.question, (chosen[q.question] ?? []).join(', ')]));
  /** @param {{ question: string, multiSelect: boolean }} q @param {string} label */
  function pick(q, label) {
    const mine = picked[q.question] ?? [];
    const next = { ...picked, [q.question]: q.multiSelect ? (mine.includes(label) ? mine.filter((l) => l !== label) : [...mine, label]) : [label] };
    setPicked(next);
    // one tap answers when every question is a single choice
    if (!questions.some((x) => x.multiSelect) && complete(next)) onAnswer(answersOf(next));
  }
  return html`<div class="questions">
    ${questions.map((q) => html`<fieldset class="question" data-question=${q.question}>
      <legend>${q.header && html`<span class="question-header">${q.header}</span> `}${q.question}</legend>
      <div class="question-options">
        ${q.options.map((o) => html`<button type="button" class="option" data-option=${o.label} title=${o.description}
          aria-pressed=${(picked[q.question] ?? []).includes(o.label) ? 'true' : 'false'} disabled=${!canDecide || busy} onClick=${() => pick(q, o.label)}>${o.label}</button>`)}
      </div>
    </fieldset>`)}
    ${canDecide
      ? html`<div class="approval-actions">
          ${questions.some((q) => q.multiSelect) && html`<button type="button" class="allow" data-decision="answer" disabled=${busy || !complete(picked)} onClick=${() => onAnswer(answersOf(picked))}>Send answers</button>`}
          <button type="button" class="deny" data-decision="deny" disabled=${busy} onClick=${onDeny}>Let it ask in the terminal</button>
        </div>`
      : html`<p class="muted">To answer here, sign in with an admin or operator token.</p>`}
  </div>`;
}
