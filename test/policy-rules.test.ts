// Table-driven tests of the pure policy evaluator: ordering, matching, each rule type's decision.
import {
  evaluate,
  insideTimeWindow,
  type CallContext,
  type Rule,
  type Usage,
} from '../domain/policies/evaluate';
import { globMatch } from '../domain/policies/glob';

const base: CallContext = {
  agentId: 'agent-1',
  toolName: 'wallet.execute',
  amountMinor: 500n,
  currency: 'BRL',
  now: new Date('2026-03-04T15:30:00Z'),
  approved: false,
};
let seq = 0;
const rule = (type: Rule['type'], config: Record<string, unknown> = {}, more: Partial<Rule> = {}): Rule => ({
  id: `pol_${++seq}`,
  name: `${type} rule`,
  type,
  config,
  agents: [],
  tools: [],
  enabled: true,
  order: seq,
  ...more,
});
const noUsage = (): Usage => ({ spent: new Map(), calls: new Map() });

describe('evaluate', () => {
  const budget = rule('budget', { currency: 'BRL', cap_minor: '1000', window: 'day' });
  const rate = rule('rate-limit', { max_calls: 2, window_seconds: 60 });
  const cases: Array<[string, Rule[], Partial<CallContext>, Usage, string, string | null, string | null]> = [
    ['no rules allow', [], {}, noUsage(), 'allow', null, null],
    ['a matching deny denies', [rule('deny')], {}, noUsage(), 'deny', 'denied_by_rule', 'deny'],
    [
      'a deny for another agent does not apply',
      [rule('deny', {}, { agents: ['agent-2'] })],
      {},
      noUsage(),
      'allow',
      null,
      null,
    ],
    [
      'glob agents match',
      [rule('deny', {}, { agents: ['agent-*'] })],
      {},
      noUsage(),
      'deny',
      'denied_by_rule',
      'deny',
    ],
    [
      'glob tools match',
      [rule('deny', {}, { tools: ['wallet.*'] })],
      {},
      noUsage(),
      'deny',
      'denied_by_rule',
      'deny',
    ],
    [
      'a disabled deny is skipped',
      [rule('deny', {}, { enabled: false })],
      {},
      noUsage(),
      'allow',
      null,
      null,
    ],
    [
      'an earlier allow wins over a later deny',
      [rule('allow', {}, { order: 0 }), rule('deny', {}, { order: 1 })],
      {},
      noUsage(),
      'allow',
      null,
      'allow',
    ],
    [
      'an earlier deny wins over a later allow',
      [rule('deny', {}, { order: 0 }), rule('allow', {}, { order: 1 })],
      {},
      noUsage(),
      'deny',
      'denied_by_rule',
      'deny',
    ],
    [
      'a budget with room passes',
      [budget],
      {},
      { spent: new Map([[budget.id, 500n]]), calls: new Map() },
      'allow',
      null,
      null,
    ],
    [
      'a budget reached exactly passes',
      [budget],
      {},
      { spent: new Map([[budget.id, 500n]]), calls: new Map() },
      'allow',
      null,
      null,
    ],
    [
      'a budget overrun denies',
      [budget],
      {},
      { spent: new Map([[budget.id, 501n]]), calls: new Map() },
      'deny',
      'budget_exceeded',
      'budget',
    ],
    [
      'a budget in another currency does not apply',
      [budget],
      { currency: 'USD' },
      { spent: new Map([[budget.id, 10_000n]]), calls: new Map() },
      'allow',
      null,
      null,
    ],
    [
      'a rate limit under its max passes',
      [rate],
      {},
      { spent: new Map(), calls: new Map([[rate.id, 1]]) },
      'allow',
      null,
      null,
    ],
    [
      'a rate limit at its max denies',
      [rate],
      {},
      { spent: new Map(), calls: new Map([[rate.id, 2]]) },
      'deny',
      'rate_limited',
      'rate-limit',
    ],
    [
      'approval-required holds',
      [rule('approval-required')],
      {},
      noUsage(),
      'hold',
      'approval_required',
      'approval-required',
    ],
    [
      'approval-required under its threshold passes',
      [rule('approval-required', { above_minor: '500', currency: 'BRL' })],
      {},
      noUsage(),
      'allow',
      null,
      null,
    ],
    [
      'approval-required above its threshold holds',
      [rule('approval-required', { above_minor: '499', currency: 'BRL' })],
      {},
      noUsage(),
      'hold',
      'approval_required',
      'approval-required',
    ],
    [
      'an approved replay passes approval-required',
      [rule('approval-required')],
      { approved: true },
      noUsage(),
      'allow',
      null,
      null,
    ],
    [
      'an approved replay is still denied by a deny',
      [rule('approval-required'), rule('deny')],
      { approved: true },
      noUsage(),
      'deny',
      'denied_by_rule',
      'deny',
    ],
    [
      'outside a time window denies',
      [rule('time-window', { timezone: 'UTC', days: ['mon'], start: '09:00', end: '17:00' })],
      {},
      noUsage(),
      'deny',
      'outside_time_window',
      'time-window',
    ],
    [
      'inside a time window passes',
      [rule('time-window', { timezone: 'UTC', days: ['wed'], start: '09:00', end: '17:00' })],
      {},
      noUsage(),
      'allow',
      null,
      null,
    ],
  ];
  it.each(cases)('%s', (_name, rules, ctx, usage, decision, reason, ruleType) => {
    const result = evaluate(rules, { ...base, ...ctx }, usage);
    expect(result.decision).toBe(decision);
    expect('reason' in result ? result.reason : null).toBe(reason);
    expect(result.rule?.type ?? null).toBe(ruleType);
  });
});

describe('evaluate with a stored config it cannot read', () => {
  // Rows written before configs were checked: a constraint fails closed, allow and deny read no config.
  it.each([
    ['budget', {}],
    ['budget', { currency: 'BRL', cap_minor: 'x', window: 'day' }],
    ['budget', { currency: 'BRL', cap_minor: '10', window: 'year' }],
    ['rate-limit', {}],
    ['rate-limit', { max_calls: 0, window_seconds: 60 }],
    ['time-window', { timezone: 'Nowhere/Else', days: ['mon'], start: '09:00', end: '17:00' }],
    ['time-window', { timezone: 'UTC', days: 'mon', start: '09:00', end: '17:00' }],
    ['approval-required', { above_minor: 'a lot', currency: 'BRL' }],
    ['budget', null],
    ['rate-limit', [1]],
    ['time-window', 'weekdays'],
  ] as const)(
    'denies a matching %s rule with config %j as rule_config_invalid, without throwing',
    (type, config) => {
      const broken = rule(type, config as unknown as Record<string, unknown>);
      const result = evaluate([broken], base, noUsage());
      expect(result).toEqual({ decision: 'deny', rule: broken, reason: 'rule_config_invalid' });
      expect(evaluate([broken], { ...base, approved: true }, noUsage()).decision).toBe('deny');
      expect(evaluate([{ ...broken, agents: ['someone-else'] }], base, noUsage())).toEqual({
        decision: 'allow',
        rule: null,
      });
    },
  );

  it.each([
    ['allow', null, 'allow'],
    ['deny', [1, 2], 'deny'],
    ['allow', 'text', 'allow'],
  ] as const)('reads no config for %s, so %j does not matter', (type, config, decision) => {
    expect(
      evaluate([rule(type, config as unknown as Record<string, unknown>)], base, noUsage()).decision,
    ).toBe(decision);
  });

  it('keeps unknown keys out of the way of a usable config', () => {
    const budget = rule('budget', { currency: 'BRL', cap_minor: '1000', window: 'day', note: 'ops' });
    expect(evaluate([budget], base, { spent: new Map([[budget.id, 600n]]), calls: new Map() })).toEqual({
      decision: 'deny',
      rule: budget,
      reason: 'budget_exceeded',
    });
  });
});

describe('insideTimeWindow', () => {
  // 2026-03-04 is a Wednesday.
  it.each([
    ['2026-03-04T15:30:00Z', 'UTC', ['wed'], '09:00', '17:00', true],
    ['2026-03-04T17:00:00Z', 'UTC', ['wed'], '09:00', '17:00', false],
    ['2026-03-04T09:00:00Z', 'UTC', ['wed'], '09:00', '17:00', true],
    ['2026-03-04T15:30:00Z', 'America/Sao_Paulo', ['wed'], '13:00', '13:00', true],
    ['2026-03-04T15:30:00Z', 'America/Sao_Paulo', ['wed'], '12:00', '12:30', false],
    ['2026-03-04T15:30:00Z', 'America/Sao_Paulo', ['wed'], '12:00', '12:31', true],
    ['2026-03-04T15:30:00Z', 'America/Sao_Paulo', ['wed'], '13:00', '14:00', false],
    ['2026-03-05T02:00:00Z', 'UTC', ['wed'], '22:00', '06:00', true],
    ['2026-03-05T02:00:00Z', 'UTC', ['thu'], '22:00', '06:00', false],
    ['2026-03-04T23:00:00Z', 'UTC', ['wed'], '22:00', '06:00', true],
    ['2026-03-05T02:30:00Z', 'Asia/Tokyo', ['thu'], '09:00', '17:00', true],
  ] as const)('%s in %s on %j %s–%s is %s', (at, timezone, days, start, end, expected) => {
    expect(insideTimeWindow({ timezone, days: [...days], start, end }, new Date(at))).toBe(expected);
  });
});

describe('globMatch', () => {
  it.each([
    ['*', 'anything', true],
    ['agent-?', 'agent-1', true],
    ['agent-?', 'agent-10', false],
    ['wallet.*', 'wallet.execute', true],
    ['wallet.*', 'walletXexecute', false],
    ['a+b', 'a+b', true],
    ['a+b', 'aab', false],
    ['pay*', 'payments.create', true],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['a*', 'a', true],
    ['*a', 'ba', true],
    ['*a', 'ab', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['**', 'x', true],
    ['*.*', 'wallet.execute', true],
    ['*.*', 'wallet', false],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYbZ', false],
    ['agent-?', 'agent-🤖', true],
    ['(a)[b]', '(a)[b]', true],
    ['^$', '^$', true],
  ])('%s ~ %s is %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('answers patterns built to make a backtracking matcher explode', () => {
    // As a regex, `^.*a.*a…c$` against 200 a's backtracks for longer than any test would wait.
    expect(globMatch(`${'*a'.repeat(99)}c`, 'a'.repeat(200))).toBe(false);
    expect(globMatch('*a'.repeat(99), 'a'.repeat(200))).toBe(true);
    expect(globMatch(`${'?*'.repeat(99)}b`, 'a'.repeat(199))).toBe(false);
  });
});
