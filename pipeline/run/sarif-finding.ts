// A failing cell as every suite hands it to the SARIF writer (analysis/sarif.ts); types only.

/** One failing cell as a suite hands it to the writer. */
export interface SarifFinding {
  /** `stale-policy/<scenario>`, `integrity/T9`, `frontdoor/memory_injection`. */
  ruleId: string;
  /** The rule's one-line name and its help text (what the failure means and what to do). */
  ruleName: string;
  help: string;
  /** Mapped from the suite's severity. */
  level: 'error' | 'warning' | 'note';
  message: string;
  /** What the cell is (target/system/mode/arm/model…): hashed with the suite and rule id into the fingerprint. */
  identity: Readonly<Record<string, string>>;
}
