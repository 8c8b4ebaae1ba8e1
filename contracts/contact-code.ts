// The inputs and the check's answer of the contact-code workflows. The target (and, for checks, the code) travel sealed, so
// Temporal's history never holds a phone number, an email or a code.

export interface ContactCodeDeliveryInput {
  verificationId: string;
  targetSealed: string;
}

export interface ContactCodeCheckInput {
  verificationId: string;
  targetSealed: string;
  codeSealed: string;
}

/** What the provider that owns a code says of it. */
export type OtpCheckStatus = 'success' | 'failure' | 'expired';
