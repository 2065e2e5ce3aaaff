// The errors every layer raises: one base class with structured fields. Depends on nothing, so backends/, guard/,
// scenarios/, pipeline/ and analysis/ all import it from here (issue #13 item 5; it lived in pipeline/ before).

/** Base of every error stalebench raises on purpose. `code` is stable and machine-readable. */
export class EvalError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A component id (system, model, arm, embedder, ...) that no registry line provides. */
export class UnknownComponentError extends EvalError {
  readonly kind: string;
  readonly id: string;
  readonly available: readonly string[];
  constructor(kind: string, id: string, available: readonly string[]) {
    super('unknown-component', `unknown ${kind} "${id}"; available: ${available.join(', ')}`);
    this.kind = kind;
    this.id = id;
    this.available = available;
  }
}

/** One problem in user input: where it is (`path`) and what is wrong with it. */
export interface InputIssue {
  path: string;
  message: string;
}

/** Bad input (a scenario file, a flag, a config): names the source and lists every problem with its path. */
export class InvalidInputError extends EvalError {
  readonly source: string;
  readonly issues: readonly InputIssue[];
  constructor(source: string, issues: readonly InputIssue[]) {
    const lines = issues.map((issue) => `  ✖ ${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
    super('invalid-input', `invalid ${source}:\n${lines.join('\n')}`);
    this.source = source;
    this.issues = issues;
  }
}

/** A server-backed engine or endpoint that could not be reached. Never followed by a silent fallback. */
export class BackendUnavailableError extends EvalError {
  readonly backend: string;
  readonly url: string;
  readonly hint: string;
  constructor(backend: string, url: string, hint: string, options?: { cause?: unknown }) {
    super('backend-unavailable', `${backend} is not reachable at ${url}: ${hint}`, options);
    this.backend = backend;
    this.url = url;
    this.hint = hint;
  }
}

/**
 * Something a component needs on this machine is missing or is the wrong version (a Python venv, a pinned package).
 * Raised before a run writes anything; the message names what is missing and how to install it.
 */
export class MissingPrerequisiteError extends EvalError {
  /** The component that cannot start, e.g. `inspeximus`. */
  readonly component: string;
  /** What it needs, e.g. the pinned Python package and the venv it must be in. */
  readonly prerequisite: string;
  /** What is wrong and how to install it. */
  readonly hint: string;
  constructor(component: string, prerequisite: string, hint: string) {
    super('missing-prerequisite', `${component} needs ${prerequisite}: ${hint}`);
    this.component = component;
    this.prerequisite = prerequisite;
    this.hint = hint;
  }
}

/** "This implementation can't do that": a typed error the caller can catch and report as n/a. */
export class UnsupportedFeatureError extends EvalError {
  readonly backend: string;
  readonly feature: string;
  constructor(backend: string, feature: string, reason?: string) {
    super('unsupported-feature', `${backend} does not support ${feature}${reason ? `: ${reason}` : ''}`);
    this.backend = backend;
    this.feature = feature;
  }
}

/** A decision-model provider call that failed after the retry ladder; carries how many attempts it took. */
export class ProviderError extends EvalError {
  readonly status: number | undefined;
  readonly attempts: number;
  constructor(message: string, status: number | undefined, attempts: number, options?: { cause?: unknown }) {
    super('provider-error', message, options);
    this.status = status;
    this.attempts = attempts;
  }
}

/**
 * A file could not be written because of the disk, not the data: no space, a quota, a read-only or forbidden
 * location. The message is one line naming the cause and the file; the CLI adds what to do.
 */
export class StorageError extends EvalError {
  /** The file or directory that could not be written. */
  readonly path: string;
  /** The system error code: `ENOSPC`, `EDQUOT`, `EROFS`, `EACCES` or `EPERM`. */
  readonly reason: string;
  constructor(path: string, reason: string, description: string, options?: { cause?: unknown }) {
    super('storage', `cannot write ${path}: ${description} (${reason})`, options);
    this.path = path;
    this.reason = reason;
  }
}
