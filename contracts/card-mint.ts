// What the card mint workflow takes and answers: the mint flow to carry out, and where the issuer is to
// send its authorization requests (the gateway's public origin, as the caller reached it).
export interface CardMintInput {
  flowId: string;
  callbackUrl: string;
}

export type CardMintOutcome = { status: 'minted'; cardId: string } | { status: 'failed'; reason: string };

/** The failure type of an issuer's refusal: the flow ends `failed` with the issuer's code. */
export const ISSUER_REFUSED = 'IssuerRefused';
