// Failure types of the contact-code workflows and activities (string constants, never class names),
// shared by the activities that raise them and the API that maps them to HTTP answers.
export const OTP_SENDER_REFUSED = 'OtpSenderRefused';
export const OTP_SENDER_UNAVAILABLE = 'OtpSenderUnavailable';
export const OTP_SENDER_UNCONFIGURED = 'OtpSenderUnconfigured';
export const CONTACT_VERIFICATION_INCOMPLETE = 'ContactVerificationIncomplete';
