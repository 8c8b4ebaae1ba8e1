// Contact verification's provider calls. Delivery: send the code (retried, same idempotency key), then
// open the row for checks; a send that fails removes the row, a row that cannot open after the code left
// is reported with its id. Check: one provider check of a code the provider owns (Prelude), not retried,
// since a repeated check is not the same question.
// These run while an HTTP caller waits, each step a second or less: local activities keep them inside
// one workflow task (no round trip through the server per step), as Temporal advises for short work.
import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  ContactCodeCheckInput,
  ContactCodeDeliveryInput,
  OtpCheckStatus,
} from '../contracts/contact-code';
import {
  CONTACT_VERIFICATION_INCOMPLETE,
  OTP_SENDER_REFUSED,
  OTP_SENDER_UNAVAILABLE,
  OTP_SENDER_UNCONFIGURED,
} from '../domain/contact-verification/failure-types';

const { sendContactCode } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [OTP_SENDER_REFUSED, OTP_SENDER_UNCONFIGURED],
  },
});
const { completeContactVerification, discardContactVerification } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});
const { checkContactCode } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
});

/** The application failure an activity raised, whether or not it arrives wrapped in an ActivityFailure. */
function applicationFailure(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? cause : undefined;
}

export async function contactCodeDelivery(
  input: ContactCodeDeliveryInput,
): Promise<{ providerReference: string | null }> {
  let providerReference: string | null;
  try {
    ({ providerReference } = await sendContactCode(input));
  } catch (error) {
    await discardContactVerification(input.verificationId);
    const cause = applicationFailure(error);
    if (cause && (cause.type === OTP_SENDER_REFUSED || cause.type === OTP_SENDER_UNCONFIGURED)) {
      throw ApplicationFailure.nonRetryable(cause.message, cause.type, ...(cause.details ?? []));
    }
    throw ApplicationFailure.nonRetryable('The sender did not take the message', OTP_SENDER_UNAVAILABLE);
  }
  try {
    await completeContactVerification(input.verificationId, providerReference);
  } catch {
    throw ApplicationFailure.nonRetryable(
      'The code was sent but the verification could not be opened',
      CONTACT_VERIFICATION_INCOMPLETE,
      {
        verification_id: input.verificationId,
      },
    );
  }
  return { providerReference };
}

export async function contactCodeCheck(input: ContactCodeCheckInput): Promise<OtpCheckStatus> {
  try {
    return await checkContactCode(input);
  } catch (error) {
    const type =
      applicationFailure(error)?.type === OTP_SENDER_UNCONFIGURED
        ? OTP_SENDER_UNCONFIGURED
        : OTP_SENDER_UNAVAILABLE;
    throw ApplicationFailure.nonRetryable('The provider did not answer the check', type);
  }
}
