// The reconciliation rule, pure: match the ledger's provider debits with the provider's settlement
// records by payment id. A debit with no record is debit_without_receipt; a record of this project with
// no debit is receipt_without_debit; a matched pair with a different amount or currency is both.

export interface LedgerDebit {
  entryId: bigint;
  walletId: string;
  paymentId: string;
  amountMinor: bigint; // positive
  currency: string;
}

export interface ProviderRecord {
  paymentId: string;
  reference: string;
  amountMinor: bigint;
  currency: string;
}

export interface Comparison {
  matched: LedgerDebit[];
  debitsWithoutReceipt: LedgerDebit[];
  receiptsWithoutDebit: ProviderRecord[];
}

export function compare(debits: LedgerDebit[], records: ProviderRecord[]): Comparison {
  const byPayment = new Map(records.map((record) => [record.paymentId, record]));
  const debited = new Set<string>();
  const result: Comparison = { matched: [], debitsWithoutReceipt: [], receiptsWithoutDebit: [] };
  for (const debit of debits) {
    debited.add(debit.paymentId);
    const record = byPayment.get(debit.paymentId);
    if (record && record.amountMinor === debit.amountMinor && record.currency === debit.currency)
      result.matched.push(debit);
    else {
      result.debitsWithoutReceipt.push(debit);
      if (record) result.receiptsWithoutDebit.push(record);
    }
  }
  for (const record of records) if (!debited.has(record.paymentId)) result.receiptsWithoutDebit.push(record);
  return result;
}
