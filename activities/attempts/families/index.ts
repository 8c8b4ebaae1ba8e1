// Every family of the engine, registered in one place: a new family is one file beside these, one entry
// here and its traits in contracts/attempt.ts.
import type { EngineFamily } from '../../../contracts/attempt';
import type { AttemptFamilySteps } from '../family';
import { consumerSpend } from './consumer-spend';
import { cardAuthorization } from './card-authorization';
import { toolCharge } from './tool-charge';
import { walletExecute } from './wallet-execute';

export const FAMILIES: { [F in EngineFamily]: AttemptFamilySteps<F> } = {
  wallet_execute: walletExecute,
  tool_charge: toolCharge,
  consumer_spend: consumerSpend,
  card_authorization: cardAuthorization,
};
