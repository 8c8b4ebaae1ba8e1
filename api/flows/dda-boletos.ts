// The boletos a consumer owes, read from the DDA provider for each of the consumer's active registrations
// (a read: nothing is written, so no workflow). Dates are checked here first; a range the provider
// refuses is the caller's 400, a provider that does not answer is 502.
import { findConsumer } from '../../domain/consumers/consumers';
import type { Tenant } from '../../domain/consumers/tenant';
import { isCalendarDate, presentBoletos, type DdaBoleto } from '../../domain/dda/boletos';
import { listActiveDocuments } from '../../domain/dda/subscriptions';
import { ApiError, notFound } from '../../domain/errors';
import { ddaProvider, DdaRefused, DdaUnavailable } from '../../providers/dda/client';
import { EndpointNotConfigured, providerEndpoint } from '../../domain/providers/endpoints';
import type { AppDeps } from '../deps';

const badQuery = (path: string, message: string) =>
  new ApiError(400, 'invalid_query', message, { issues: [{ path, message, keyword: 'format' }] });

export async function listDdaBoletos(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  range: { from_date: string; to_date: string },
): Promise<{ from_date: string; to_date: string; count: number; boletos: DdaBoleto[] }> {
  if (!isCalendarDate(range.from_date)) throw badQuery('/from_date', 'from_date is not a calendar date');
  if (!isCalendarDate(range.to_date)) throw badQuery('/to_date', 'to_date is not a calendar date');
  if (range.to_date < range.from_date) throw badQuery('/to_date', 'to_date is before from_date');
  if (!(await findConsumer(deps.db, tenant, consumerId))) throw notFound('Consumer');

  const documents = await listActiveDocuments(deps.db, tenant, consumerId);
  const boletos: DdaBoleto[] = [];
  if (documents.length > 0) {
    const baseUrl = providerEndpoint(deps.config, 'dda', tenant.environment);
    if (!baseUrl)
      throw new ApiError(
        502,
        'dda_provider_unavailable',
        new EndpointNotConfigured('dda', tenant.environment).message,
      );
    const provider = ddaProvider({ baseUrl, timeoutMs: deps.config.providerTimeoutMs });
    for (const document of documents) {
      try {
        boletos.push(
          ...presentBoletos(document, await provider.boletos(document, range.from_date, range.to_date)),
        );
      } catch (error) {
        if (error instanceof DdaRefused && error.status === 400)
          throw new ApiError(400, 'invalid_date_range', 'The DDA provider refuses this date range', {
            provider_code: error.code,
            provider_message: error.message,
          });
        if (error instanceof DdaRefused || error instanceof DdaUnavailable)
          throw new ApiError(502, 'dda_provider_unavailable', 'The DDA provider could not list the boletos', {
            provider_code: error instanceof DdaRefused ? error.code : null,
          });
        throw error;
      }
    }
  }
  return { from_date: range.from_date, to_date: range.to_date, count: boletos.length, boletos };
}
