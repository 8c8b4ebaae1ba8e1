// Contact targets: normalized (lower-case email, E.164 phone), validated, masked for display, and
// hashed with a keyed HMAC so a leaked table does not reveal who was contacted.
import { createHmac } from 'node:crypto';
import { ApiError } from '../errors';
import type { Channel } from './policy';

const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]{2,}$/;
const E164 = /^\+[1-9][0-9]{7,14}$/;

/** The canonical spelling of a target, or null when it is not a valid address for the channel. */
export function normalizeTarget(channel: Channel, raw: string): string | null {
  if (channel === 'email') {
    const email = raw.trim().toLowerCase();
    return email.length <= 254 && EMAIL.test(email) ? email : null;
  }
  const phone = raw.trim().replace(/[\s().-]/g, '');
  return E164.test(phone) ? phone : null;
}

export function requireTarget(channel: Channel, raw: string): string {
  const target = normalizeTarget(channel, raw);
  if (target === null) {
    const expected =
      channel === 'email' ? 'an email address' : 'a phone number in E.164 form (+5511987654321)';
    throw new ApiError(400, 'invalid_target', `target must be ${expected}`, { channel });
  }
  return target;
}

export function maskTarget(channel: Channel, target: string): string {
  if (channel === 'email') {
    const [local, domain] = target.split('@');
    return `${local.slice(0, 1)}***@${domain}`;
  }
  return `${target.slice(0, 3)}${'*'.repeat(Math.max(target.length - 7, 1))}${target.slice(-4)}`;
}

export function hashTarget(pepper: string, channel: Channel, target: string): string {
  return createHmac('sha256', pepper).update(`contact-target:${channel}:${target}`).digest('hex');
}
