/**
 * An agent's question (AskUserQuestion's `questions`: each with `question`, `options[].label`,
 * `multiSelect`) and a person's answers to it: every question answered with one of its options'
 * labels (several joined with ", " where multiSelect). Anything else is a clear 400.
 */
import { isObjectRecord, type JsonValue } from '../../shared/protocol/json.js';

interface Question {
  question: string;
  labels: string[];
  multiSelect: boolean;
}

/** The questions an approval's input asks, or null when it asks none (a plain tool call, a plan). */
export function questionsOf(input: JsonValue | null): Question[] | null {
  if (!isObjectRecord(input) || !Array.isArray(input.questions)) return null;
  const records = (values: unknown[]) => values.filter((value): value is Record<string, unknown> => isObjectRecord(value));
  return records(input.questions).map((q) => ({
    question: String(q.question ?? ''),
    labels: records(Array.isArray(q.options) ? q.options : []).map((o) => String(o.label ?? '')),
    multiSelect: q.multiSelect === true,
  }));
}

/** What is wrong with these answers for this approval's input and decision, or null when nothing is. */
export function answersProblem(input: JsonValue | null, decision: 'allow' | 'deny', answers: Record<string, string> | undefined): string | null {
  const questions = questionsOf(input);
  if (questions === null) return answers === undefined ? null : 'answers: this approval asks no question';
  if (decision === 'deny') return answers === undefined ? null : 'answers: go with allow only (a deny answers nothing)';
  if (answers === undefined) return `answers: required to allow a question (${questions.map((q) => JSON.stringify(q.question)).join(', ')})`;
  for (const key of Object.keys(answers)) {
    if (!questions.some((q) => q.question === key)) return `answers: ${JSON.stringify(key)} is not a question of this approval`;
  }
  for (const q of questions) {
    const answer = answers[q.question];
    if (answer === undefined) return `answers: ${JSON.stringify(q.question)} is not answered`;
    const picked = q.multiSelect ? answer.split(', ') : [answer];
    const wrong = picked.find((label) => !q.labels.includes(label));
    if (wrong !== undefined) return `answers: ${JSON.stringify(wrong)} is none of the options of ${JSON.stringify(q.question)} (${q.labels.map((l) => JSON.stringify(l)).join(', ')})`;
  }
  return null;
}
