// @ts-check
/**
 * On a session: Continue (ended: a machine runner resumes it, through the resume gate), Interrupt
 * and Stop (a live run a machine runner drives). Each says what will happen; a refusal shows the
 * hub's message, which says why and what to do (docs/machines.md).
 */
import { useEffect, useState } from 'preact/hooks';
import { useHubOnline } from '../hub-link.js';
import { html } from '../html.js';
import { mayDecide } from '../auth.js';
import { flavorName, messageOf } from '../format.js';
import { RESUME, say } from '../words.js';
import { CopyId } from './copy-id.js';

/**
 * The Continue card's promise, only as far as the hub confirmed it.
 * @param {ReturnType<typeof useContinuePlace>} place @param {string} agent
 */
function placeWords(place, agent) {
  if (place.kind === 'checking') return 'Continue: checking which machine can run it…';
  if (place.kind === 'refused') return `Continue is not possible now: ${place.text}`;
  const { name, host, path } = place.machine;
  return `Continue: the machine runner "${name}" on ${host} starts ${agent} again in ${path}, resuming this conversation as a new run of this session.`;
}

/** How often an open ended session asks again where it would continue (a runner comes or goes). */
const PLACE_REFRESH_MS = 10_000;

/**
 * Where a Continue would run, asked of the hub before the click (issue 46.5): `ok` with the machine,
 * `refused` with the hub's words (not connected, no machine, the agent missing), `checking` until known.
 * @param {import('../api.js').Api} api @param {string} sid @param {boolean} wanted
 */
export function useContinuePlace(api, sid, wanted) {
  const [place, setPlace] = useState(/** @type {{ kind: 'checking' } | { kind: 'ok', machine: import('../../../shared/protocol/machines.js').ContinuePlaceResponse } | { kind: 'refused', text: string }} */ ({ kind: 'checking' }));
  const online = useHubOnline();
  useEffect(() => {
    if (!wanted || !online) return undefined;
    let closed = false;
    const ask = () =>
      api.continuePlace(sid).then(
        (machine) => closed || setPlace({ kind: 'ok', machine }),
        (err) => closed || setPlace({ kind: 'refused', text: messageOf(err) }),
      );
    void ask();
    const timer = setInterval(ask, PLACE_REFRESH_MS);
    return () => {
      closed = true;
      clearInterval(timer);
    };
  }, [api, sid, wanted, online]);
  return place;
}

/** @typedef {ReturnType<typeof useContinuePlace>} ContinuePlace */

/**
 * `place`: where a Continue would run (useContinuePlace, asked by the detail: the reply box needs it
 * too). The one text box of an ended session is here while a Continue can run, else the reply box's.
 * @param {{ session: import('../sessions.js').SessionSnapshot, role: string | null, api: import('../api.js').Api, place: ContinuePlace }} props
 */
export function MachineActions({ session: s, role, api, place }) {
  const [prompt, setPrompt] = useState('');
  const [outcome, setOutcome] = useState(/** @type {{ kind: string, text: string, code?: string } | null} */ (null));
  // "the hub did not answer" is over once the link is back
  const online = useHubOnline();
  useEffect(() => {
    if (online) setOutcome((was) => (was?.code === 'network' ? null : was));
  }, [online]);
  const live = s.lifecycle.lastRun?.status === 'running';
  if (!mayDecide(role)) return null;
  // a live run a machine runner drives can be interrupted and stopped from here; a terminal's cannot
  // (it carries the machine id too, where a runner is installed on its computer)
  // (`drivenBy`: shared/protocol/machines.ts DRIVEN_BY_KEY)
  const runnerDriven = typeof s.metadata.value.machineId === 'string' && s.metadata.value.drivenBy === 'machine';
  if (live && !runnerDriven) return null;

  /** @param {() => Promise<unknown>} fn @param {string} done */
  async function act(fn, done) {
    setOutcome({ kind: 'working', text: 'Asking the machine…' });
    try {
      await fn();
      setOutcome({ kind: 'ok', text: done });
    } catch (err) {
      const { code, reason } = /** @type {any} */ (err);
      // the gate's refusal in the page's words, from its reason (the hub's message is written for
      // API callers: 'retry with policy "force"'; the snapshot's resume status may not be refetched yet)
      const text = code === 'resume_unsafe' ? `${say(RESUME, reason).text || messageOf(err)}: its conversation may end mid-turn. Continue anyway resumes it as it was left.` : messageOf(err);
      setOutcome({ kind: 'error', text, code });
    }
  }

  const agent = flavorName(s.flavor);
  // the gate's verdict is on the snapshot: said before the click, not after a refusal ("still
  // running" is a verdict from before the run ended: the refetch after the end brings the new one)
  const unsafe = s.resume?.available === true && s.resume.safe === false && s.resume.reason !== 'run_in_progress';
  return html`<section class="machine-actions">
    ${!live &&
    html`<p class="muted" id="continue-where" data-place=${place.kind}>${placeWords(place, agent)}</p>
      ${unsafe && place.kind === 'ok' && html`<p class="muted" id="continue-unsafe">${say(RESUME, s.resume?.reason ?? null).text}: its conversation may end mid-turn (a run stopped or cut off while it worked). Continue anyway resumes it as it was left.</p>`}
      ${place.kind === 'ok' && html`<textarea id="continue-prompt" rows="3" aria-label="Next prompt" placeholder=${`Your next prompt (optional): ${agent} resumes with it`} value=${prompt} onInput=${(/** @type {any} */ e) => setPrompt(e.currentTarget.value)}></textarea>`}
      ${place.kind === 'ok' && html`<p class="take-back muted" id="take-back">Or take it back at ${place.machine.host}, in a terminal: <${CopyId} label="" value=${`session-hub continue ${s.sid}`} name="take-back" /></p>`}
      ${!unsafe && html`<button type="button" id="continue" disabled=${place.kind !== 'ok'} onClick=${() => act(() => api.continueSession(s.sid, { ...(prompt.trim() ? { prompt } : {}) }), `Continuing on the machine: ${agent} resumed.`)}>Continue</button>`}
      ${(unsafe || outcome?.code === 'resume_unsafe') &&
      html`<button type="button" id="continue-force" disabled=${place.kind !== 'ok'} onClick=${() => act(() => api.continueSession(s.sid, { policy: 'force', ...(prompt.trim() ? { prompt } : {}) }), 'Continuing anyway.')}>Continue anyway</button>`}`}
    ${live &&
    html`<button type="button" id="interrupt" onClick=${() => act(() => api.actOnRun(s.sid, 'interrupt'), 'Interrupted: the turn ended.')}>Interrupt</button>
      <button type="button" id="stop" onClick=${() => act(() => api.actOnRun(s.sid, 'stop'), `Stopped: ${agent} and everything it started have ended.`)}>Stop</button>
      <p class="muted action-help">Interrupt ends the current turn; ${agent} stays and waits for the next message. Stop ends ${agent} and everything it started.</p>`}
    ${outcome && html`<p id="machine-outcome" class=${outcome.kind === 'error' ? 'error' : 'muted'} role="status">${outcome.text}</p>`}
  </section>`;
}
