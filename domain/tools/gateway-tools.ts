// The gateway's own operations published as tools of the server `gateway`. Their input schemas are the
// gateway's request schemas (wallet execute's body plus the wallet it pays from), so a tool call is
// checked exactly as the HTTP operation would be. `wallet.execute` is also the policy tool name the
// spend attempt evaluates, so one rule governs the REST route and the tool alike; a consumer spend's rules
// match `consumer_payments.<rail>`, which `consumer_payments.*` covers together with its tool.
import { SpendBody } from '../../schema/http/consumer-payments';
import { WalletExecute } from '../../schema/http/execute';
import { PaymentLinkCreate } from '../../schema/http/payment-links';
import type { JsonSchema } from '../../schema/http/json-schema';
import { WalletTransferCreate } from '../../schema/http/wallets';

export const GATEWAY_SERVER_ID = 'gateway';

export type GatewayOperation =
  | 'wallet_execute'
  | 'consumer_spend'
  | 'wallet_transfer'
  | 'wallet_balances'
  | 'approval_status'
  | 'payment_link_create'
  | 'payment_link_list';

export interface GatewayTool {
  name: string;
  operation: GatewayOperation;
  description: string;
  movesMoney: boolean;
  /** Runs as an attempt of the attempt engine (a payment out through a provider), not as a gated call. */
  attempt: boolean;
  inputSchema: Record<string, unknown>;
}

const WalletId = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: "The wallet, in the caller's project.",
} as const satisfies JsonSchema;

/** A transfer between two wallets of the project: the transfer body plus the wallet it leaves. */
export const WalletTransferInput = {
  ...WalletTransferCreate,
  required: ['wallet_id', 'external_ref', ...WalletTransferCreate.required],
  properties: { wallet_id: WalletId, ...WalletTransferCreate.properties },
} as const satisfies JsonSchema;

export const GATEWAY_TOOLS: GatewayTool[] = [
  {
    name: 'wallet.balances',
    operation: 'wallet_balances',
    movesMoney: false,
    attempt: false,
    description:
      "Read a wallet's balances: balance_minor and available_minor per currency, as decimal strings.",
    inputSchema: {
      type: 'object',
      required: ['wallet_id'],
      additionalProperties: false,
      properties: { wallet_id: WalletId },
    },
  },
  {
    name: 'wallet.execute',
    operation: 'wallet_execute',
    movesMoney: true,
    attempt: true,
    description:
      "Pay from a wallet: policy, hold, provider dispatch, then debit or release. Idempotent by attempt_id; a policy may deny it or hold it for a person's approval.",
    inputSchema: {
      ...WalletExecute,
      required: ['wallet_id', ...WalletExecute.required],
      properties: { wallet_id: WalletId, ...WalletExecute.properties },
    },
  },
  {
    name: 'consumer_payments.execute',
    operation: 'consumer_spend',
    movesMoney: true,
    attempt: true,
    description:
      "Spend on a consumer's signed mandate over Pix (payee: a DICT key or BR Code) or TED (`ted`): mandate caps, policy, approval hold, PSP dispatch and a sealed receipt. Idempotent by attempt_id.",
    inputSchema: { ...SpendBody, required: [...SpendBody.required, 'mandate'] },
  },
  {
    name: 'wallet.transfer',
    operation: 'wallet_transfer',
    movesMoney: true,
    attempt: false,
    description:
      'Move money between two wallets of the project in one currency, in one ledger transaction (no FX is guessed). external_ref makes it idempotent: a repeated reference is refused with ledger_conflict. Policy rules on wallet.transfer gate it.',
    inputSchema: WalletTransferInput,
  },
  {
    name: 'payment_links.create',
    operation: 'payment_link_create',
    movesMoney: false,
    attempt: false,
    description:
      'Create a payment link a buyer pays over x402 (USDC) or Pix (BRL): the same body as POST /v1/payment-links. Answers the link with its pay_url. Made with an API key only, never an OAuth token.',
    inputSchema: PaymentLinkCreate,
  },
  {
    name: 'payment_links.list',
    operation: 'payment_link_list',
    movesMoney: false,
    attempt: false,
    description: "The project's payment links, newest first, each with its pay_url.",
    inputSchema: { type: 'object', additionalProperties: false, properties: {} },
  },
  {
    name: 'approvals.status',
    operation: 'approval_status',
    movesMoney: false,
    attempt: false,
    description:
      "Read where a held call's approval stands (pending, approved, denied, expired) and, once replayed, its result.",
    inputSchema: {
      type: 'object',
      required: ['approval_id'],
      additionalProperties: false,
      properties: { approval_id: { type: 'string', minLength: 1, maxLength: 64 } },
    },
  },
];
