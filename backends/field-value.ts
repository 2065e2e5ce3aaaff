// A value a store returned, as a record field: scalars kept, null and undefined as null, anything else as JSON.
import type { FieldValue } from './memory-backend.js';

/** `value` as a record field (objects and arrays as their JSON text). */
export const fieldValueOf = (value: unknown): FieldValue =>
  value === null || value === undefined
    ? null
    : typeof value === 'object'
      ? JSON.stringify(value)
      : (value as FieldValue);
