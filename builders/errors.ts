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
    // An error about the whole input (path "") is the prefix's.
    const path =
      this.propertyPath === ""
        ? prefix
        : this.propertyPath.startsWith("[")
          ? `${prefix}${this.propertyPath}`
          : `${prefix}.${this.propertyPath}`;
    return new InputError(prefix ? path : this.propertyPath, this.reason);
  }
}

/**
 * Where a nested input's errors belong in the Args the user wrote: a prefix (`"router"` puts `replicas`
 * at `router.replicas`), or a function for properties that are renamed on the way (`name` is `role`).
 */
export type PathMap = string | ((builderPath: string) => string);

function placed(e: InputError, path: PathMap): InputError {
  if (typeof path === "string") return e.under(path);
  return new InputError(path(e.propertyPath), e.reason);
}

/**
 * Runs `fn`, placing every InputError it throws where the user wrote it (see PathMap): the one way a
 * builder's or a component's nested input reports at the user's path.
 */
export function within<T>(path: PathMap, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError || e instanceof InputErrors) {
      const errors = InputErrors.of(e).map((error) => placed(error, path));
      InputErrors.throwIfAny(errors);
    }
    throw e;
  }
}

/**
 * Several InputErrors of one input, reported together so that a user fixes them in one round. A
 * component turns it into a `pulumi.InputPropertiesError`.
 */
export class InputErrors extends Error {
  readonly errors: readonly InputError[];

  private constructor(errors: readonly InputError[]) {
    super(errors.map((e) => e.message).join("; "));
    this.name = "InputErrors";
    this.errors = errors;
  }

  /** The InputErrors carried by `e` (one or several); anything else is re-thrown. */
  static of(e: unknown): readonly InputError[] {
    if (e instanceof InputError) return [e];
    if (e instanceof InputErrors) return e.errors;
    throw e;
  }

  /** Throws nothing for no errors, the InputError itself for one, an InputErrors for several. */
  static throwIfAny(errors: readonly InputError[]): void {
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new InputErrors(errors);
  }
}

/** Runs every check, then reports all the InputErrors they threw together, or returns their results. */
export function collectErrors<T extends unknown[]>(checks: [...{ [K in keyof T]: () => T[K] }]): T {
  const errors: InputError[] = [];
  const results = checks.map((check) => {
    try {
      return check();
    } catch (e) {
      errors.push(...InputErrors.of(e));
      return undefined;
    }
  });
  InputErrors.throwIfAny(errors);
  return results as T;
}

/** `fn` of every item of a list, the InputErrors of all items reported together. */
export function collectEach<T, R>(items: readonly T[], fn: (item: T, index: number) => R): R[] {
  return collectErrors<R[]>(items.map((item, i) => () => fn(item, i)));
}
