// The deprecated issued-card read: an `icrd_` id answers its card, an `imf_` id its mint flow, both
// only inside the caller's organization and project.
import { ApiError } from '../../domain/errors';
import { findIssuerRecord } from '../../domain/issuer/cards';
import { ErrorEnvelope } from '../../schema/http/common';
import { IssuedCard, IssuerRecordParams, MintFlow } from '../../schema/http/issuer';
import { DEPRECATION_HEADERS } from '../deprecation';
import { route, type AnyRoute } from '../route';

export const issuerRoutes: AnyRoute[] = [
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'get',
    path: '/v1/issuer/cards/:id',
    auth: 'key',
    scope: 'unmapped',
    tags: ['Issuer'],
    operationId: 'getIssuerCard',
    summary: 'An issued card (`icrd_` id) or a card mint flow (`imf_` id)',
    description: 'Deprecated: answers `Deprecation` and `Link` headers. No replacement is published.',
    deprecated: true,
    params: IssuerRecordParams,
    responses: {
      200: { description: 'The card or the mint flow', schema: { oneOf: [IssuedCard, MintFlow] } },
      404: {
        description: '`not_found`: neither exists in this organization and project',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      const record = await findIssuerRecord(deps.db, principal, params.id);
      if (!record)
        throw new ApiError(404, 'not_found', 'Card not found', undefined, { ...DEPRECATION_HEADERS });
      return {
        headers: { ...DEPRECATION_HEADERS },
        body: record.kind === 'card' ? record.card : record.flow,
      };
    },
  }),
];
