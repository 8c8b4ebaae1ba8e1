// Rules of a consent intent that JSON Schema cannot say: caps that must nest, CPF/CNPJ check digits,
// slots that must be coherent. Refusals use the same 400 invalid_body envelope, issues and all.
import type { IntentInput } from '../../schema/http/consents';
import { ApiError } from '../errors';
import { documentKind } from '../consumers/document-number';

export interface IntentIssue {
  path: string;
  message: string;
  keyword: string;
}

/** Pix moves reais only; other rails are added with the currencies they can fund. */
export function railFunds(rail: string, currency: string): boolean {
  return rail.startsWith('pix-') ? currency === 'BRL' : false;
}

export function intentIssues(intent: IntentInput, at = '/intent'): IntentIssue[] {
  const issues: IntentIssue[] = [];
  const issue = (path: string, message: string, keyword = 'consistency') =>
    issues.push({ path: `${at}${path}`, message, keyword });
  if (intent.per_tx_cap_minor > intent.cap_minor) issue('/per_tx_cap_minor', 'must not exceed cap_minor');
  if (intent.periodic_cap && intent.periodic_cap.cap_minor > intent.cap_minor)
    issue('/periodic_cap/cap_minor', 'must not exceed cap_minor');
  (intent.dda_allowlist ?? []).forEach((entry, index) => {
    if (documentKind(entry) === null)
      issue(`/dda_allowlist/${index}`, 'is not a valid CPF or CNPJ (check digits do not match)', 'format');
  });
  const seen = new Set<string>();
  (intent.slots ?? []).forEach((slot, index) => {
    const key = `${slot.currency}/${slot.rail}`;
    if (seen.has(key)) issue(`/slots/${index}`, `repeats the ${key} slot`, 'uniqueItems');
    seen.add(key);
    if (slot.per_tx_cap_minor > slot.cap_minor)
      issue(`/slots/${index}/per_tx_cap_minor`, 'must not exceed the slot cap_minor');
    if (slot.currency === intent.currency && slot.cap_minor > intent.cap_minor)
      issue(`/slots/${index}/cap_minor`, 'a slot in the intent currency must not exceed cap_minor');
    if (!railFunds(slot.rail, slot.currency))
      issue(`/slots/${index}/rail`, `${slot.rail} cannot fund ${slot.currency}`);
  });
  return issues;
}

export function checkIntent(intent: IntentInput): void {
  const issues = intentIssues(intent);
  if (issues.length === 0) return;
  throw new ApiError(400, 'invalid_body', `Request body is invalid: ${issues[0].path} ${issues[0].message}`, {
    issues,
  });
}

/** The rails a submit may choose for this intent: those funding its currency or named by a slot. */
export function railAllowed(intent: IntentInput, rail: string): boolean {
  return railFunds(rail, intent.currency) || (intent.slots ?? []).some((slot) => slot.rail === rail);
}
