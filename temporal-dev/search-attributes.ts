// The custom search attributes every gateway workflow may carry, so an operator finds a stuck
// payment in the Temporal UI with one query (e.g. `OrgId = "org_..." AND AttemptId = "..."`).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
};
