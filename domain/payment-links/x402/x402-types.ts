// The @x402/core protocol types the rail speaks. The package publishes them under an `exports` subpath
// that this project's `node` module resolution cannot see, so they are reached by their file path; types
// only, nothing is loaded at run time.
export type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from '@x402/core/dist/cjs/types';
