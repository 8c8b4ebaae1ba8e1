// Pure rules of the operator console, table-driven: money shown in major units, the service-token and
// form-token checks, and the settings that shape the console.
import { formatMinor } from '../../api/pages/console-dashboard';
import { credentialDigest, csrfFor, isServiceToken } from '../../api/pages/console-guard';
import { ConfigError, loadConfig } from '../../runtime/config';

describe('amounts', () => {
  it.each([
    ['12000', 'BRL', '120.00 BRL'],
    ['5', 'BRL', '0.05 BRL'],
    ['-777', 'USD', '-7.77 USD'],
    [12000n, 'BRL', '120.00 BRL'],
    ['1500', 'JPY', '1500 JPY'],
    ['42', 'XTS', '42 minor XTS'],
    ['4.2', 'BRL', '4.2 minor BRL'],
    [null, 'BRL', ''],
    ['9', null, '9 minor'],
  ] as Array<[string | bigint | null, string | null, string]>)(
    'shows %p %p as %p',
    (amount, currency, shown) => {
      expect(formatMinor(amount, currency)).toBe(shown);
    },
  );
});

describe('tokens', () => {
  const token = 's'.repeat(48);
  it.each([
    [token, true],
    ['s'.repeat(47), false],
    [`${'s'.repeat(47)}t`, false],
    ['', false],
  ])('takes %p as the service token: %p', (presented, ok) => {
    expect(isServiceToken(presented, token)).toBe(ok);
  });
  it('takes nothing as the service token when none is configured', () =>
    expect(isServiceToken('', undefined)).toBe(false));
  it('binds the form token to its session and the session to the credential', () => {
    expect(csrfFor('session-a')).toBe(csrfFor('session-a'));
    expect(csrfFor('session-a')).not.toBe(csrfFor('session-b'));
    expect(csrfFor('session-a')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(credentialDigest(token)).not.toBe(credentialDigest(`${token}x`));
    expect(credentialDigest(token)).not.toContain(token);
  });
});

describe('settings', () => {
  it('defaults to five minutes for stuck attempts, eight-hour sign-ins and no Temporal UI', () => {
    const config = loadConfig({});
    expect(config.console).toEqual({ stuckAfterMs: 300_000, sessionTtlMs: 28_800_000 });
    expect(config.temporal.uiUrl).toBeUndefined();
  });
  it('reads the settings and trims a trailing slash off the UI URL', () => {
    const config = loadConfig({
      GATEWAY_CONSOLE_STUCK_AFTER_SECONDS: '60',
      GATEWAY_CONSOLE_SESSION_MINUTES: '15',
      TEMPORAL_UI_URL: 'https://temporal.example/ui/',
    });
    expect(config.console).toEqual({ stuckAfterMs: 60_000, sessionTtlMs: 900_000 });
    expect(config.temporal.uiUrl).toBe('https://temporal.example/ui');
  });
  it.each([
    ['TEMPORAL_UI_URL', 'javascript:alert(1)'],
    ['TEMPORAL_UI_URL', 'not a url'],
    ['GATEWAY_CONSOLE_STUCK_AFTER_SECONDS', '0'],
    ['GATEWAY_CONSOLE_SESSION_MINUTES', 'soon'],
  ])('refuses %s=%p', (name, value) => expect(() => loadConfig({ [name]: value })).toThrow(ConfigError));
});
