// One registry per kind of component: its ids, zod-checked arguments, lazy creation, and the `{kind, id, args}`
// record the manifest keeps, after inspect_ai's registry (the log shows how every part was configured).
import { z } from 'zod';
import { InvalidInputError, UnknownComponentError } from './errors.js';

/** Arguments as a registry line's schema returns them: a plain object with defaults filled in. */
export type ComponentArgs = Record<string, unknown>;

/** What the manifest records about one component: which registry line built it, with which arguments. */
export interface ComponentRecord {
  /** The registry's kind: `system`, `graph-engine`, `embedder`, `decision-model`, `experiment`, ... */
  kind: string;
  /** The registry id, e.g. `mem0-exp`, `neo4j`, `openai-compatible`. */
  id: string;
  /** The validated arguments, defaults included; never a secret (keys and passwords are not arguments). */
  args: ComponentArgs;
}

/** What every registry line has; a kind adds its own members (a factory, capabilities, defaults). */
export interface RegistryEntry {
  /** One line for `--help`. */
  summary: string;
  /** The arguments the line accepts; its defaults are filled in and recorded. */
  args: z.ZodType<ComponentArgs>;
}

/** A registry line that builds something: its arguments are checked, then passed typed to its factory. */
export interface FactoryEntry<Instance, Context> extends RegistryEntry {
  /** Creates the component from checked arguments; heavy modules are imported inside, on first use. */
  create(args: ComponentArgs, context: Context): Promise<Instance>;
}

/** The registry of one kind. */
export interface Registry<Id extends string, Entry extends RegistryEntry> {
  /** The kind, as errors, `--help` and the manifest name it. */
  readonly kind: string;
  /** Every registered id, in registration order (the grid's order where it matters). */
  readonly ids: readonly [Id, ...Id[]];
  /** Whether `id` is registered (own ids only: `toString` is not one). */
  has(id: string): id is Id;
  /** The line of `id`; an unknown id throws `UnknownComponentError` naming every available id. */
  get(id: string): Entry;
  /** Checks `args` against the line's schema and returns what the manifest records (`InvalidInputError` otherwise). */
  record(id: string, args?: unknown): ComponentRecord;
}

/**
 * Defines a registry. Ids are the entries' keys, in order.
 *
 * @example
 * const COLOURS = defineRegistry('colour', { red: { summary: 'warm', args: z.object({}).strict() } });
 * COLOURS.record('red'); // { kind: 'colour', id: 'red', args: {} }
 */
export function defineRegistry<const Entries extends Record<string, RegistryEntry>>(
  kind: string,
  entries: Entries,
): Registry<Extract<keyof Entries, string>, Entries[keyof Entries]> {
  type Id = Extract<keyof Entries, string>;
  const ids = Object.keys(entries).filter((id): id is Id => Object.hasOwn(entries, id));
  const [first, ...rest] = ids;
  if (first === undefined) throw new TypeError(`the ${kind} registry is empty`);
  const has = (id: string): id is Id => Object.hasOwn(entries, id);
  const get = (id: string): Entries[keyof Entries] => {
    if (!has(id)) throw new UnknownComponentError(kind, id, ids);
    return entries[id];
  };
  return {
    kind,
    ids: [first, ...rest],
    has,
    get,
    record: (id, args = {}) => ({ kind, id, args: checkArgs(kind, id, get(id).args, args) }),
  };
}

/** Validates arguments, naming the component and every problem with its path. */
export function checkArgs<S extends z.ZodType<ComponentArgs>>(
  kind: string,
  id: string,
  schema: S,
  args: unknown,
): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    `${kind} "${id}" arguments`,
    parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}

/**
 * A registry line with a factory: the factory receives its arguments typed by its own schema.
 *
 * @example
 * const line = factory({ summary: 'in memory', args: z.object({ size: z.number().default(8) }).strict(), create: async ({ size }) => new Map([[size, size]]) });
 */
export function factory<S extends z.ZodType<ComponentArgs>, Instance, Context>(definition: {
  summary: string;
  args: S;
  create(args: z.output<S>, context: Context): Promise<Instance>;
}): FactoryEntry<Instance, Context> {
  return {
    summary: definition.summary,
    args: definition.args,
    create: (args, context) => definition.create(definition.args.parse(args), context),
  };
}

const records = new WeakMap<object, ComponentRecord>();

/** Creates a component through its registry line and tags it with its record (`recordOf`). */
export async function createComponent<Instance extends object, Context>(
  registry: Registry<string, FactoryEntry<Instance, Context>>,
  id: string,
  args: unknown,
  context: Context,
): Promise<Instance> {
  const record = registry.record(id, args);
  const instance = await registry.get(id).create(record.args, context);
  records.set(instance, record);
  return instance;
}

/** The record of a component made by `createComponent`, or undefined for one built directly (a test's fake). */
export function recordOf(instance: object): ComponentRecord | undefined {
  return records.get(instance);
}

/** `  id        summary` lines for `--help`, one per registry line. */
export function helpLines(registry: Registry<string, RegistryEntry>, indent = '    '): string {
  const width = Math.max(...registry.ids.map((id) => id.length)) + 2;
  return registry.ids.map((id) => `${indent}${id.padEnd(width)}${registry.get(id).summary}`).join('\n');
}

/** An arguments schema for a line that takes none. */
export const NO_ARGS = z.object({}).strict();

/** A run-spec field naming a registry line: `{ id, ...its arguments }`. */
export type SpecPart = { id: string } & ComponentArgs;

/** The arguments of a spec part (everything but its id). */
export function argsOf(part: SpecPart): ComponentArgs {
  const { id: _id, ...args } = part;
  return args;
}

/** The ids of one kind that a name must be among (a registry, or a suite's targets). */
export interface KnownIds {
  readonly kind: string;
  readonly ids: readonly string[];
}

/** `unknown system "x"; available: graphiti, …`: the one wording of an id no registry line names. */
const unknownIdMessage = (known: KnownIds, id: string) =>
  `unknown ${known.kind} "${id}"; available: ${known.ids.join(', ')}`;

/**
 * A string that must be one of `known.ids` (read when a value is checked); an unknown one names every available id.
 *
 * @example z.array(knownId(SYSTEMS)).parse(['grafiti']) // unknown system "grafiti"; available: graphiti, …
 */
export function knownId(known: KnownIds): z.ZodType<string> {
  return z.string().superRefine((id, context) => {
    if (!known.ids.includes(id)) context.addIssue({ code: 'custom', message: unknownIdMessage(known, id) });
  });
}

/**
 * The run-spec schema of a field naming a registry line: the id must be registered and the rest must pass that
 * line's own schema, every problem reported with its path. The value is kept exactly as given (defaults go to the
 * manifest's record, not into the spec, so the spec's hash and old run logs stay as they were).
 */
export function specPartSchema(registry: Registry<string, RegistryEntry>): z.ZodType<SpecPart> {
  return z.looseObject({ id: z.string() }).superRefine((part, context) => {
    if (!registry.has(part.id)) {
      context.addIssue({
        code: 'custom',
        path: ['id'],
        message: unknownIdMessage(registry, part.id),
      });
      return;
    }
    const parsed = registry.get(part.id).args.safeParse(argsOf(part));
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });
}
