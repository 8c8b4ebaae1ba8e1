// The words of a one-time-code message, per locale (English when the locale is not one we speak).
export interface OtpText {
  subject: string;
  text: string;
}

const TEMPLATES: Record<string, (code: string, minutes: number) => OtpText> = {
  en: (code, minutes) => ({
    subject: `Your verification code: ${code}`,
    text: `Your verification code is ${code}. It expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
  }),
  pt: (code, minutes) => ({
    subject: `Seu código de verificação: ${code}`,
    text: `Seu código de verificação é ${code}. Ele expira em ${minutes} minutos. Se você não pediu, ignore esta mensagem.`,
  }),
  es: (code, minutes) => ({
    subject: `Tu código de verificación: ${code}`,
    text: `Tu código de verificación es ${code}. Vence en ${minutes} minutos. Si no lo pediste, ignora este mensaje.`,
  }),
};

export function otpText(locale: string, code: string, minutes: number): OtpText {
  const language = locale.toLowerCase().split('-')[0];
  return (TEMPLATES[language] ?? TEMPLATES.en)(code, minutes);
}
