// The `prompt-hardening` arm (reference `prompt_harden`): the HARDEN prefix in front of the system message (§9).
import { HARDEN } from '../suites/grid/prompts.js';
import type { DefenceV1 } from './defence-v1.js';

/** Tells the model that retrieved facts may be outdated; the prefix's trailing space is part of the experiment. */
export const promptHardeningDefence = {
  specificationVersion: 'v1',
  id: 'prompt-hardening',
  label: 'prompt hardening',
  arm: { referenceName: 'prompt_harden' },
  uses: [],
  create: () => ({ systemPrefix: HARDEN }),
} as const satisfies DefenceV1;
