// Policy evaluation, pure: rules run in `order`; allow and deny end evaluation on a match; budget,
// rate-limit, time-window and approval-required are constraints that either stop the call or let
// evaluation continue. No deciding rule means allow. Usage counters are loaded by the caller. A stored
// rule is never trusted to be well-formed: evaluation reads a config only as `usableConfig` typed it.
import type { ApprovalConfig, PolicyType, TimeWindowConfig, Weekday } from '../../schema/policy-config';
import { usableConfig, WEEKDAYS } from '../../schema/policy-config';
import { matchesAny } from './glob';

export interface Rule {
  id: string;
  name: string;
  type: PolicyType;
  /** As stored: an object for every rule written through the API, anything for older or hand-written rows. */
  config: unknown;
  agents: string[];
  tools: string[];
  enabled: boolean;
  order: number;
}

export interface CallContext {
  agentId: string;
  toolName: string;
  amountMinor: bigint | null;
  currency: string | null;
  now: Date;
  /** Set when replaying a call a human approved: approval-required rules are satisfied. */
  approved: boolean;
}

export interface Usage {
  /** Spend counted for a budget rule (excluding this call). */
  spent: Map<string, bigint>;
  /** Allowed calls counted for a rate-limit rule (excluding this call). */
  calls: Map<string, number>;
}

export type DenialReason =
  | 'denied_by_rule'
  | 'budget_exceeded'
  | 'rate_limited'
  | 'outside_time_window'
  | 'approval_required'
  | 'rule_config_invalid';

export type Decision =
  | { decision: 'allow'; rule: Rule | null }
  | { decision: 'deny'; rule: Rule; reason: Exclude<DenialReason, 'approval_required'> }
  | { decision: 'hold'; rule: Rule; reason: 'approval_required' };

export function ruleApplies(rule: Rule, ctx: Pick<CallContext, 'agentId' | 'toolName'>): boolean {
  return rule.enabled && matchesAny(rule.agents, ctx.agentId) && matchesAny(rule.tools, ctx.toolName);
}

/** Weekday and minutes after midnight of `now` in `timeZone`. */
export function localClock(now: Date, timeZone: string): { day: Weekday; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = part('weekday').toLowerCase().slice(0, 3) as Weekday;
  return { day, minutes: Number(part('hour')) * 60 + Number(part('minute')) };
}

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

export function insideTimeWindow(config: TimeWindowConfig, now: Date): boolean {
  const { day, minutes } = localClock(now, config.timezone);
  const start = minutesOf(config.start);
  const end = minutesOf(config.end);
  if (start === end) return config.days.includes(day); // the whole day
  if (start < end) return config.days.includes(day) && minutes >= start && minutes < end;
  // Spans midnight: the early-morning part belongs to the window opened the previous day.
  if (minutes >= start) return config.days.includes(day);
  if (minutes < end) return config.days.includes(WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7]);
  return false;
}

function approvalNeeded(config: ApprovalConfig, ctx: CallContext): boolean {
  if (config.above_minor === undefined) return true;
  if (ctx.amountMinor === null || ctx.currency !== config.currency) return false;
  return ctx.amountMinor > BigInt(config.above_minor);
}

export function evaluate(rules: Rule[], ctx: CallContext, usage: Usage): Decision {
  const ordered = [...rules].sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
  for (const rule of ordered) {
    if (!ruleApplies(rule, ctx)) continue;
    // Allow and deny read no config, so theirs never matters.
    if (rule.type === 'allow') return { decision: 'allow', rule };
    if (rule.type === 'deny') return { decision: 'deny', rule, reason: 'denied_by_rule' };
    // A constraint whose config cannot be read fails closed: skipping it would let a broken budget, rate
    // limit, time window or approval rule wave spends through, so the call is denied and the reason tells
    // the tenant which rule to fix.
    const usable = usableConfig(rule.type, rule.config);
    if (!usable) return { decision: 'deny', rule, reason: 'rule_config_invalid' };
    switch (usable.type) {
      case 'budget': {
        const { config } = usable;
        if (ctx.amountMinor === null || ctx.currency !== config.currency) break;
        const spent = usage.spent.get(rule.id) ?? 0n;
        if (spent + ctx.amountMinor > BigInt(config.cap_minor))
          return { decision: 'deny', rule, reason: 'budget_exceeded' };
        break;
      }
      case 'rate-limit':
        if ((usage.calls.get(rule.id) ?? 0) + 1 > usable.config.max_calls)
          return { decision: 'deny', rule, reason: 'rate_limited' };
        break;
      case 'time-window':
        if (!insideTimeWindow(usable.config, ctx.now))
          return { decision: 'deny', rule, reason: 'outside_time_window' };
        break;
      case 'approval-required':
        if (!ctx.approved && approvalNeeded(usable.config, ctx))
          return { decision: 'hold', rule, reason: 'approval_required' };
        break;
    }
  }
  return { decision: 'allow', rule: null };
}
