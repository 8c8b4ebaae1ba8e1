// Which webhook URLs the gateway will call. In the live environment only https to public addresses
// (no server-side request forgery into loopback, private, link-local or metadata ranges); in test,
// http and loopback are allowed so a developer's local receiver works. Checked at create and update
// on the literal host, and again at delivery on every resolved address (DNS can change).
import { isIP } from 'node:net';
import type { Environment } from '../tenancy/api-key-format';

export type UrlRefusal =
  'malformed' | 'scheme_not_allowed' | 'https_required' | 'credentials_in_url' | 'private_address';

export interface UrlVerdict {
  ok: boolean;
  reason?: UrlRefusal;
  message?: string;
}

const refuse = (reason: UrlRefusal, message: string): UrlVerdict => ({ ok: false, reason, message });

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

// [network, prefix length]: loopback, RFC 1918, CGNAT, link-local (cloud metadata), "this network",
// benchmarking, documentation, multicast and reserved.
const PRIVATE_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function isPrivateV4(address: string): boolean {
  const value = ipv4ToInt(address);
  return PRIVATE_V4.some(([network, bits]) => {
    const size = 2 ** (32 - bits);
    const base = ipv4ToInt(network);
    return value >= base && value < base + size;
  });
}

function isPrivateV6(address: string): boolean {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isPrivateV4(mapped[1]);
  // URL parsing writes IPv4-mapped addresses in hex (::ffff:7f00:1 for 127.0.0.1).
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const [high, low] = [parseInt(mappedHex[1], 16), parseInt(mappedHex[2], 16)];
    return isPrivateV4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  if (lower === '::' || lower === '::1') return true;
  const first = parseInt(lower.split(':')[0] || '0', 16);
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast, 64:ff9b::/96 NAT64 (may reach private v4).
  return (
    (first & 0xfe00) === 0xfc00 ||
    (first & 0xffc0) === 0xfe80 ||
    (first & 0xff00) === 0xff00 ||
    lower.startsWith('64:ff9b:')
  );
}

/** True for any address a live webhook must never reach. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return isPrivateV4(bare);
  if (family === 6) return isPrivateV6(bare);
  return false;
}

const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

/** Judges a webhook URL for an environment, on its text alone (no DNS). */
export function checkWebhookUrl(raw: string, environment: Environment): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('malformed', 'webhook_url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return refuse('scheme_not_allowed', 'webhook_url must use https (or http in the test environment)');
  if (url.username || url.password)
    return refuse(
      'credentials_in_url',
      'webhook_url must not carry credentials; verify deliveries with the signing secret instead',
    );
  if (environment === 'test') return { ok: true };
  if (url.protocol !== 'https:')
    return refuse('https_required', 'webhook_url must use https in the live environment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (PRIVATE_NAMES.test(host) || isPrivateAddress(host) || (!host.includes('.') && isIP(host) === 0)) {
    return refuse('private_address', 'webhook_url must reach a public address in the live environment');
  }
  return { ok: true };
}
