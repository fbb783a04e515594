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
