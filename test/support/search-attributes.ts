// Registers the gateway's custom search attributes on the time-skipping test server, which (unlike the dev
// server started with --search-attribute) knows none; workflows that set them fail to start otherwise.
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../temporal-dev/search-attributes';
import type { Gateway } from './harness';

const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT } = temporal.api.enums.v1.IndexedValueType;

export async function registerSearchAttributes(gw: Gateway): Promise<void> {
  const searchAttributes = Object.fromEntries(
    Object.entries(SEARCH_ATTRIBUTE_FLAGS).map(([name, type]) => [name, type === 'Int' ? INDEXED_VALUE_TYPE_INT : INDEXED_VALUE_TYPE_KEYWORD]),
  );
  await gw.env.connection.operatorService.addSearchAttributes({ namespace: gw.env.namespace ?? 'default', searchAttributes });
}
