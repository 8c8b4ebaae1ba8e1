// Reading a card's authorizations with the money the issuer moved for each, inside the caller's project:
// what the gateway decided and held, beside what it debited and credited.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { AUTHORIZATION_COLUMNS, authorizationRow, type AuthorizationRow } from './authorization-family';
import type { IssuerScope } from './cards';

export const cardTransactionRow = z.object({
  id: z.string(),
  authorization_id: z.string(),
  issuer_transaction_id: z.string(),
  type: z.enum(['capture', 'refund']),
  amount_minor: z.bigint(),
  ledger_minor: z.bigint(),
  unfunded_minor: z.bigint(),
  created_at: z.string(),
});
export type CardTransactionRow = z.infer<typeof cardTransactionRow>;

export interface AuthorizationView {
  authorization: AuthorizationRow;
  transactions: CardTransactionRow[];
}

/** The card's authorizations, newest first, each with its transactions in the order they were applied. */
export async function listCardAuthorizations(
  db: CommonQueryMethods,
  scope: IssuerScope,
  cardId: string,
  limit: number,
): Promise<AuthorizationView[]> {
  const authorizations = await db.any(sql.type(authorizationRow)`
    SELECT ${AUTHORIZATION_COLUMNS} FROM card_authorizations
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND card_id = ${cardId}
    ORDER BY created_at DESC, id DESC LIMIT ${limit}`);
  if (authorizations.length === 0) return [];
  const transactions = await db.any(sql.type(cardTransactionRow)`
    SELECT id, authorization_id, issuer_transaction_id, type, amount_minor, ledger_minor, unfunded_minor, created_at
    FROM card_transactions WHERE authorization_id = ANY(${sql.array(
      authorizations.map((a) => a.id),
      'text',
    )}) ORDER BY created_at, id`);
  return authorizations.map((authorization) => ({
    authorization,
    transactions: transactions.filter((t) => t.authorization_id === authorization.id),
  }));
}
