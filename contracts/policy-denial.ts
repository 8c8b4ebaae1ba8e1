// The rule that denied or held a call, as the spec's flat denial body names it. Plain JSON: it travels in
// a consumer spend's stored refusal and through workflows.
export interface DeniedBy {
  reason: string;
  ruleType: string;
  ruleId: string;
  ruleName: string | null;
}
