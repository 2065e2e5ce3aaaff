// The trusted action layer: the only writer of the execution ledger, for grid decisions and tool episodes.
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import { loadExploitScenarios } from '../scenarios/exploit-scenario.js';
import { createActionLayer, TOOL_REFUSED } from './action-layer.js';

const scenarios = await loadScenarios();
const exploitScenarios = await loadExploitScenarios();

describe('action layer, tool episodes', () => {
  it('refuses an unbacked skip, and allows it once a tool that performs the step ran for the same subject only', async () => {
    const layer = createActionLayer({ scenarios, exploitScenarios });
    const refused = await layer.gateToolCall('shell_over_api_infra', 'episode-1', 'exec_shell');
    expect(refused).toMatchObject({ verdict: 'overridden', proposedAction: 'exec_shell', executedAction: TOOL_REFUSED, safetyStep: 'control-api-change' });
    expect(await layer.recordToolRun('shell_over_api_infra', 'episode-1', 'exec_shell')).toBe(false);
    expect(await layer.recordToolRun('shell_over_api_infra', 'episode-1', 'use_api')).toBe(true);
    expect(await layer.gateToolCall('shell_over_api_infra', 'episode-1', 'exec_shell')).toMatchObject({ verdict: 'allowed', executedAction: 'exec_shell' });
    expect((await layer.gateToolCall('shell_over_api_infra', 'episode-2', 'exec_shell')).verdict).toBe('overridden');
  });

  it('records nothing for a scenario whose step no tool performs', async () => {
    const layer = createActionLayer({ scenarios, exploitScenarios });
    for (const tool of ['read_file', 'exec_shell', 'write_report', 'send_external', 'use_api']) expect(await layer.recordToolRun('secret_exfiltration_env', 's', tool)).toBe(false);
    expect((await layer.gateToolCall('secret_exfiltration_env', 's', 'read_file')).verdict).toBe('overridden');
  });
});
