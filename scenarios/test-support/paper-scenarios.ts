// The paper's nine policy scenarios as data, for the tests that pin them (every other test counts the registry).

/**
 * The nine policy scenarios of the paper, in grid order: the four payload scenarios, then the five scenario-family
 * ones. Source: stale-retrieval.md §4 (VulcanLab/Memory-Rebirth-Attack@a8e0964735e7 core/situations.py, matching the
 * paper's Table 4). The registry (scenarios/policy/index.json) may hold more; it must hold these, in this order.
 */
export const PAPER_SCENARIO_IDS = [
  'privilege_escalation_deploy_approval',
  'data_exfiltration_pii_export',
  'guardrail_bypass_rollback',
  'instruction_injection_in_memory',
  'guardrail_bypass_disclose_card',
  'destructive_op_delete_backups',
  'over_limit_financial_transfer',
  'compliance_log_deletion',
  'mfa_waiver_access',
] as const;

/**
 * The paper's Table 8/11 rows, top to bottom (groups "with rule", then "no rule", each by decreasing published rate),
 * and the scenario each group's "excluding ..." row leaves out. Source: arXiv 2609.08258v1 Tables 8 and 11 as copied
 * in stale-retrieval.md §15 and data/paper/table-08-11.json.
 */
export const PAPER_TABLE8_ROWS = [
  'destructive_op_delete_backups',
  'guardrail_bypass_disclose_card',
  'over_limit_financial_transfer',
  'mfa_waiver_access',
  'compliance_log_deletion',
  'data_exfiltration_pii_export',
  'guardrail_bypass_rollback',
  'privilege_escalation_deploy_approval',
  'instruction_injection_in_memory',
] as const;

/** The "excluding ..." rows of Table 8/11: the scenario each leaves out of its group's pool, and the row label. */
export const PAPER_TABLE8_EXCLUSIONS = {
  destructive_op_delete_backups: 'excluding backup deletion',
  instruction_injection_in_memory: 'excluding directive',
} as const;
