// The consumer wallet roll-up: per currency, what the consumer's active mandates authorize, what was
// spent under them (mandate_spends), what is left, and which mandates and funding sources stand behind it.
import type { CommonQueryMethods } from '../../runtime/database';
import { listConsumerMandates, type MandateRow } from '../mandates/mandates';
import { spentByMandate } from '../mandates/spends';
import { getConsumer } from './consumers';
import type { Tenant } from './tenant';

export interface CurrencyRollup {
  currency: string;
  authorized_minor: bigint;
  spent_minor: bigint;
  available_minor: bigint;
  overspent: boolean;
  funding_source_ids: string[];
  mandate_ids: string[];
}

export interface RollupMandate {
  id: string;
  currency: string;
  capMinor: bigint;
  fundingSourceId: string;
  slots: Array<{ currency: string; capMinor: bigint }>;
}

/**
 * What one mandate authorizes per currency: its cap in its own currency; in another currency, the sum
 * of its slots there. A slot in the mandate's own currency narrows a rail and adds nothing.
 */
export function authorizationsOf(mandate: RollupMandate): Map<string, bigint> {
  const out = new Map<string, bigint>([[mandate.currency, mandate.capMinor]]);
  for (const slot of mandate.slots) {
    if (slot.currency === mandate.currency) continue;
    out.set(slot.currency, (out.get(slot.currency) ?? 0n) + slot.capMinor);
  }
  return out;
}

export function rollUp(mandates: RollupMandate[], spent: Map<string, Map<string, bigint>>): CurrencyRollup[] {
  const byCurrency = new Map<string, CurrencyRollup>();
  const entry = (currency: string) => {
    let found = byCurrency.get(currency);
    if (!found) {
      found = {
        currency,
        authorized_minor: 0n,
        spent_minor: 0n,
        available_minor: 0n,
        overspent: false,
        funding_source_ids: [],
        mandate_ids: [],
      };
      byCurrency.set(currency, found);
    }
    return found;
  };
  for (const mandate of mandates) {
    for (const [currency, authorized] of authorizationsOf(mandate)) {
      const row = entry(currency);
      row.authorized_minor += authorized;
      row.spent_minor += spent.get(mandate.id)?.get(currency) ?? 0n;
      if (!row.mandate_ids.includes(mandate.id)) row.mandate_ids.push(mandate.id);
      if (!row.funding_source_ids.includes(mandate.fundingSourceId))
        row.funding_source_ids.push(mandate.fundingSourceId);
    }
  }
  const rows = [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
  for (const row of rows) {
    row.overspent = row.spent_minor > row.authorized_minor;
    row.available_minor = row.overspent ? 0n : row.authorized_minor - row.spent_minor;
  }
  return rows;
}

export function rollupMandate(row: MandateRow): RollupMandate {
  return {
    id: row.id,
    currency: row.currency,
    capMinor: row.cap_minor,
    fundingSourceId: row.funding_source_id,
    slots: (row.document.slots ?? []).map((slot) => ({
      currency: slot.currency,
      capMinor: BigInt(slot.cap_minor),
    })),
  };
}

export async function consumerWallet(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
): Promise<{ consumer_id: string; currencies: CurrencyRollup[] }> {
  await getConsumer(db, tenant, consumerId);
  const active = (await listConsumerMandates(db, tenant, consumerId, 'active')).filter((row) => !row.lapsed);
  const spent = await spentByMandate(
    db,
    tenant,
    active.map((row) => row.id),
  );
  return { consumer_id: consumerId, currencies: rollUp(active.map(rollupMandate), spent) };
}
