// A list flag names each item once: `--model sim,sim`, `--systems graphiti,graphiti` or `--guard off,off` would
// otherwise plan every unit twice (twice the calls, twice the spend) under one unit id, and print each row twice.
import type { z } from 'zod';

/**
 * `schema`, refusing an item listed more than once, naming it as the user spells it (`label`; default its JSON).
 *
 * @example distinct(z.array(z.string().min(1)).min(1)).parse(['sim', 'sim']) // throws: "sim" is listed more than once
 */
export function distinct<T extends z.ZodType<readonly unknown[]>>(
  schema: T,
  label: (item: z.output<T>[number]) => string = (item) => JSON.stringify(item),
): T {
  return schema.superRefine((items, context) => {
    const seen = new Set<string>();
    const named = new Set<string>();
    items.forEach((item, index) => {
      const key = JSON.stringify(item);
      if (seen.has(key) && !named.has(key)) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: `${label(item)} is listed more than once; name each once`,
        });
        named.add(key);
      }
      seen.add(key);
    });
  }) as unknown as T;
}
