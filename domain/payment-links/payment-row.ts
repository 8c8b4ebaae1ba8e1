// A buyer's payment of a link as its row reads: what reserving, settling and sealing a receipt share.
import { z } from 'zod';

export const linkPaymentRow = z.object({
  id: z.string(),
  link_id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  rail: z.enum(['x402', 'pix']),
  currency: z.string(),
  amount_minor: z.bigint(),
  pay_to: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'expired']),
  rail_ref: z.string().nullable(),
  pay_code: z.string().nullable(),
  provider_ref: z.string().nullable(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
});
export type LinkPaymentRow = z.infer<typeof linkPaymentRow>;
