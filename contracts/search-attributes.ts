// The custom search attributes every gateway workflow may carry, so an operator finds a stuck
// payment in the Temporal UI with one query (e.g. `OrgId = "org_..." AND AttemptId = "..."`). They live
// beside the workflows that carry them; whoever starts a workflow (the orchestration helpers, a parent
// workflow) builds them with `searchAttributes`. The dev server registers them at start.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SEARCH_ATTRIBUTES = {
  OrgId: defineSearchAttributeKey('OrgId', SearchAttributeType.KEYWORD),
  ProjectId: defineSearchAttributeKey('ProjectId', SearchAttributeType.KEYWORD),
  Environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  ConsumerId: defineSearchAttributeKey('ConsumerId', SearchAttributeType.KEYWORD),
  MandateId: defineSearchAttributeKey('MandateId', SearchAttributeType.KEYWORD),
  AttemptId: defineSearchAttributeKey('AttemptId', SearchAttributeType.KEYWORD),
  Rail: defineSearchAttributeKey('Rail', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  AmountMinor: defineSearchAttributeKey('AmountMinor', SearchAttributeType.INT),
  KycProposalId: defineSearchAttributeKey('KycProposalId', SearchAttributeType.KEYWORD),
} as const;

// Names and types as the CLI's --search-attribute flag spells them.
export const SEARCH_ATTRIBUTE_FLAGS: Record<keyof typeof SEARCH_ATTRIBUTES, 'Keyword' | 'Int'> = {
  OrgId: 'Keyword',
  ProjectId: 'Keyword',
  Environment: 'Keyword',
  ConsumerId: 'Keyword',
  MandateId: 'Keyword',
  AttemptId: 'Keyword',
  Rail: 'Keyword',
  EventType: 'Keyword',
  AmountMinor: 'Int',
  KycProposalId: 'Keyword',
};

/** What an operator filters a workflow by: the tenant always, the rest where it applies. */
export interface SearchAttributeValues {
  orgId: string;
  projectId: string;
  environment: string;
  consumerId?: string;
  mandateId?: string;
  attemptId?: string;
  rail?: string;
  eventType?: string;
  kycProposalId?: string;
  /** A filter for operators, not the amount: clamped so a value near 2^63 cannot overflow the attribute's int64. */
  amountMinor?: string | number | bigint;
}

/** The typed search attributes of a workflow start, in one fixed order. */
export function searchAttributes(values: SearchAttributeValues): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: SEARCH_ATTRIBUTES.OrgId, value: values.orgId },
    { key: SEARCH_ATTRIBUTES.ProjectId, value: values.projectId },
    { key: SEARCH_ATTRIBUTES.Environment, value: values.environment },
  ];
  if (values.consumerId !== undefined)
    pairs.push({ key: SEARCH_ATTRIBUTES.ConsumerId, value: values.consumerId });
  if (values.mandateId !== undefined)
    pairs.push({ key: SEARCH_ATTRIBUTES.MandateId, value: values.mandateId });
  if (values.attemptId !== undefined)
    pairs.push({ key: SEARCH_ATTRIBUTES.AttemptId, value: values.attemptId });
  if (values.rail !== undefined) pairs.push({ key: SEARCH_ATTRIBUTES.Rail, value: values.rail });
  if (values.eventType !== undefined)
    pairs.push({ key: SEARCH_ATTRIBUTES.EventType, value: values.eventType });
  if (values.kycProposalId !== undefined)
    pairs.push({ key: SEARCH_ATTRIBUTES.KycProposalId, value: values.kycProposalId });
  if (values.amountMinor !== undefined)
    pairs.push({
      key: SEARCH_ATTRIBUTES.AmountMinor,
      value: Math.min(Number(values.amountMinor), Number.MAX_SAFE_INTEGER),
    });
  return pairs;
}
