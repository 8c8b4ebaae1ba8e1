// Binds the consumer-payment seams to the areas that own them. Each binding names the module it calls;
// a part whose area has not landed in this build answers 501 not_wired rather than being imitated.
import { notWired, type ConsumerPaymentSeams } from './seams';

export function wiredSeams(): ConsumerPaymentSeams {
  return {
    mandates: {
      verify: async () => { throw notWired('mandate verification (mandates area)'); },
      registered: async () => { throw notWired('registered mandates (mandates area)'); },
      recordSpend: async () => { throw notWired('mandate spend recording (mandates area)'); },
    },
    funds: {
      hold: async () => { throw notWired('consumer balance holds (ledger area)'); },
      debit: async () => { throw notWired('consumer balance debits (ledger area)'); },
      release: async () => { throw notWired('consumer balance releases (ledger area)'); },
      sourceAccount: async () => { throw notWired('consumer sub-accounts (ledger area)'); },
    },
    policies: {
      evaluate: async () => { throw notWired('policy rules (policies area)'); },
    },
    approvals: {
      raise: async () => { throw notWired('approval holds (approvals area)'); },
    },
  };
}
