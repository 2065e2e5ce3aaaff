// Python-compatible behaviour in one place: what CPython prints, parses and strips, pinned by CPython's own outputs.
// Depends on nothing else in stalebench, so every layer may import it. Test vectors: data/fixtures/python-compat/.
export { formatFixed, parsePythonFloat } from './python-float.js';
export { parseIsoInstant, type ParsedInstant } from './python-fromisoformat.js';
export { pythonJsonDumps, type PythonJsonDumpsOptions } from './python-json-dumps.js';
export { PythonJsonDecodeError, pythonJsonLoads, type PythonJsonOptions } from './python-json.js';
export { compilePythonPattern } from './python-regex.js';
export {
  compareCodePoints,
  pythonFloatRepr,
  pythonRepr,
  pythonSortedListRepr,
  pythonStr,
  pythonStringRepr,
} from './python-repr.js';
export { isPythonSpace, pythonSlice, pythonStrip } from './python-text.js';
export { instantOfDate, pythonTimestamp } from './python-timestamp.js';
export { NAMESPACE_OID, pythonUuid5 } from './python-uuid.js';
export { fromJsonLike, toJsonLike, type PythonValue } from './python-value.js';
export { parseStrictJson, type StrictJsonOutcome } from './strict-json.js';
