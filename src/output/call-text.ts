import type { AnswerNote, AppliedCall, FoundBy } from '../apply/apply-model.js';

const ANSWER: Record<AnswerNote, string> = {
  unreadable: 'answer unreadable',
};

const FOUND: Record<FoundBy, string> = {
  list: 'found afterwards by name in a list',
  location: 'found at the Location it named',
};

/**
 * A call as the progress log and the report show it, unescaped (the path holds the service's ids): `POST /parsers ->
 * 201`. A create whose answer did not give its object reads with the status it really got, or `no answer`, why when
 * the status does not say it (`201 (answer unreadable)`), and how the object was found afterwards: a reviewer must
 * not read a clean 201 for a call whose outcome was ambiguous.
 */
export function callText(call: AppliedCall): string {
  const answer = call.answer === undefined ? '' : ` (${ANSWER[call.answer]})`;
  const line = `${call.method} ${call.path} -> ${call.status === 0 ? 'no answer' : call.status}${answer}`;
  return call.found === undefined ? line : `${line}; ${FOUND[call.found]}`;
}

/** The calls of a change that found their object afterwards (a create whose answer did not give it). */
export function recoveredCalls(calls: readonly AppliedCall[]): AppliedCall[] {
  return calls.filter((c) => c.found !== undefined);
}
