// The kinds of ledger entry: the vocabulary the ledger rules, its SQL and the wallet schemas share.
export const ENTRY_KINDS = ['fund', 'hold', 'release', 'debit', 'reconcile', 'reverse', 'fee'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
