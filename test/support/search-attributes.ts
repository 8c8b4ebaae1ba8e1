// The time-skipping test server knows no custom search attributes; register the gateway's (as the dev
// server does at start) so workflows that carry them can start.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../temporal-dev/search-attributes';

const INDEXED = temporal.api.enums.v1.IndexedValueType;

export async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  const searchAttributes = Object.fromEntries(
    Object.entries(SEARCH_ATTRIBUTE_FLAGS).map(([name, type]) => [name, type === 'Int' ? INDEXED.INDEXED_VALUE_TYPE_INT : INDEXED.INDEXED_VALUE_TYPE_KEYWORD]),
  );
  await env.connection.operatorService.addSearchAttributes({ namespace: env.namespace ?? 'default', searchAttributes });
}
