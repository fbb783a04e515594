/**
 * The error every builder throws for bad input. It carries the path of the offending property (as the
 * user wrote it in the component's Args, e.g. `zones[1]` or `files[0].mode`) so that components can turn
 * it into a `pulumi.InputPropertyError` without this layer importing Pulumi.
 */
export class InputError extends Error {
  readonly propertyPath: string;
  readonly reason: string;

  constructor(propertyPath: string, reason: string) {
    super(`${propertyPath}: ${reason}`);
    this.name = "InputError";
    this.propertyPath = propertyPath;
    this.reason = reason;
  }

  /** The same error with its path placed under `prefix` (a builder's input nested in a larger Args). */
  under(prefix: string): InputError {
    const path = this.propertyPath.startsWith("[")
      ? `${prefix}${this.propertyPath}`
      : `${prefix}.${this.propertyPath}`;
    return new InputError(prefix ? path : this.propertyPath, this.reason);
  }
}

/** Runs `fn` and re-roots any InputError it throws under `prefix`. */
export function within<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError) throw e.under(prefix);
    throw e;
  }
}

/** Several InputErrors reported together; the first one's path leads, the reason lists all of them. */
export class InputErrors extends InputError {
  readonly errors: readonly InputError[];

  constructor(errors: readonly InputError[]) {
    const [first, ...rest] = errors;
    super(first.propertyPath, [first.reason, ...rest.map((e) => e.message)].join("; "));
    this.errors = errors;
  }

  override under(prefix: string): InputError {
    return new InputErrors(this.errors.map((e) => e.under(prefix)));
  }
}

/**
 * Runs every check and throws once with all the InputErrors they raised, so that a user fixes a block
 * of input in one round instead of one property per `pulumi preview`.
 */
export function allInputErrors(checks: ReadonlyArray<() => void>): void {
  const errors: InputError[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      errors.push(...(e instanceof InputErrors ? e.errors : [e]));
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new InputErrors(errors);
}
