import * as pulumi from "@pulumi/pulumi";
import { InputError, InputErrors } from "../builders/errors";
import { isPlainObject } from "../builders/machineconfiguration/json";

/**
 * The SDK prefixes `error serializing property "<name>": ` to the message of an error each time a
 * resource input that carries it is serialized, and the same error reaches many inputs; it prints the
 * stack of errors it does not know. An input error is about the user's program, not this library's
 * frames: its message stays `<path>: <reason>` and it carries no stack.
 */
function plain<E extends Error>(error: E, message: string): E {
  Object.defineProperty(error, "message", { get: () => message, set: () => undefined, enumerable: false });
  error.stack = message;
  // The SDK's program entry point prints an unhandled error with util.inspect, fields included, and the
  // SDK attaches the rejected promise as `promise`: hidden, the user reads the message alone.
  for (const key of Object.keys(error)) Object.defineProperty(error, key, { enumerable: false });
  Object.defineProperty(error, "promise", { value: undefined, writable: true, enumerable: false });
  return error;
}

/**
 * Builders report bad input as InputError (they know nothing of Pulumi); components re-raise it as
 * `pulumi.InputPropertyError`, which `pulumi preview` prints against the property, before anything
 * reaches a cluster. `prefix` places a nested builder's path under the component's Args.
 */
export function inputPropertyError(propertyPath: string, reason: string): pulumi.InputPropertyError {
  const message = `${propertyPath}: ${reason}`;
  return plain(new pulumi.InputPropertyError({ propertyPath, reason: message }), message);
}

/**
 * Several bad inputs of one component at once. The engine prints each under its property; the message
 * lists them too, for runtimes that show only the message.
 */
export function inputPropertiesError(
  errors: ReadonlyArray<{ propertyPath: string; reason: string }>,
): pulumi.InputPropertiesError | pulumi.InputPropertyError {
  if (errors.length === 1) return inputPropertyError(errors[0].propertyPath, errors[0].reason);
  const details = errors.map((e) => ({
    propertyPath: e.propertyPath,
    reason: `${e.propertyPath}: ${e.reason}`,
  }));
  const message = `${details.length} inputs are invalid:\n${details.map((d) => `  ${d.reason}`).join("\n")}`;
  return plain(new pulumi.InputPropertiesError({ message, errors: details }), message);
}

type PathMap = string | ((builderPath: string) => string);

function placed(e: InputError, path: PathMap): string {
  return typeof path === "function"
    ? path(e.propertyPath)
    : path
      ? e.under(path).propertyPath
      : e.propertyPath;
}

/** The Pulumi error for the InputErrors a builder threw, each placed where the user wrote it. */
function toPropertyError(errors: readonly InputError[], path: PathMap): Error {
  return inputPropertiesError(errors.map((e) => ({ propertyPath: placed(e, path), reason: e.reason })));
}

/**
 * Runs a builder, re-raising its InputError as InputPropertyError (several as InputPropertiesError).
 * `path` places the builder's property path where the user wrote it: a prefix for a nested builder, or
 * a function for renamed properties.
 */
export function checked<T>(fn: () => T, path: PathMap = ""): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError || e instanceof InputErrors) throw toPropertyError(InputErrors.of(e), path);
    throw e;
  }
}

interface Unknown {
  path: string;
  keys: Array<string | number>;
}

// The SDK keeps these internal; they are how a value is read during a preview without waiting for
// the parts of it that are not known yet.
type OutputInternals = { isKnown: Promise<boolean>; promise(): Promise<unknown> };

/** `value` with its Inputs resolved, every part not known yet replaced by pulumi.unknown and listed. */
async function resolveKnown(
  value: unknown,
  keys: Array<string | number>,
  unknowns: Unknown[],
): Promise<unknown> {
  if (pulumi.Output.isInstance(value)) {
    const output = value as unknown as OutputInternals;
    if (!(await output.isKnown)) {
      unknowns.push({ path: pathOf(keys), keys });
      return pulumi.unknown;
    }
    return resolveKnown(await output.promise(), keys, unknowns);
  }
  if (value instanceof Promise) return resolveKnown(await value, keys, unknowns);
  if (Array.isArray(value)) return Promise.all(value.map((v, i) => resolveKnown(v, [...keys, i], unknowns)));
  if (isPlainObject(value)) {
    const entries = await Promise.all(
      Object.entries(value).map(
        async ([k, v]) => [k, await resolveKnown(v, [...keys, k], unknowns)] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

function pathOf(keys: Array<string | number>): string {
  return keys.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
}

/** Whether a builder's error at `path` may be about the value at `unknown` (inside it, or around it). */
function related(errorPath: string, unknownPath: string): boolean {
  // Builders write map keys as ["key"], unknown parts are listed as .key.
  const normal = (p: string) => p.replace(/\["([^"]*)"\]/g, ".$1");
  const [path, unknown] = [normal(errorPath), normal(unknownPath)];
  const under = (inner: string, outer: string) =>
    outer === "" ||
    (inner.startsWith(outer) && ["", ".", "["].includes(inner.slice(outer.length, outer.length + 1)));
  return under(path, unknown) || under(unknown, path);
}

function withValueAt(value: unknown, keys: Array<string | number>, replacement: unknown): unknown {
  if (keys.length === 0) return replacement;
  const [key, ...rest] = keys;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[key] = withValueAt(copy[key], rest, replacement);
  return copy;
}

/** Stand-ins for a value not known yet, tried in turn until the builder accepts one in its place. */
const STAND_INS: unknown[] = [undefined, "x", 1, true, {}, []];

/**
 * The InputErrors `build` reports about the known parts of `values`. A check of a builder stops at its
 * first error, so where one stops at a part not known yet, that part is replaced by a stand-in the
 * builder accepts and the build runs again; errors near a replaced part are never reported.
 */
function errorsOfKnownParts<A>(
  build: (args: A) => unknown,
  values: unknown,
  unknowns: Unknown[],
): InputError[] {
  const run = (args: unknown): readonly InputError[] | undefined => {
    try {
      build(args as A);
      return [];
    } catch (e) {
      return e instanceof InputError || e instanceof InputErrors ? InputErrors.of(e) : undefined;
    }
  };
  const left = [...unknowns];
  let current = values;
  for (;;) {
    const errors = run(current);
    if (errors === undefined) return [];
    const known = errors.filter((e) => !unknowns.some((u) => related(e.propertyPath, u.path)));
    if (known.length > 0 || errors.length === 0) return known;
    const next = left.findIndex((u) => errors.some((e) => related(e.propertyPath, u.path)));
    if (next < 0) return [];
    const [unknown] = left.splice(next, 1);
    const accepted = STAND_INS.map((standIn) => withValueAt(current, unknown.keys, standIn)).find((trial) =>
      (run(trial) ?? []).every((e) => !related(e.propertyPath, unknown.path)),
    );
    if (accepted === undefined) return [];
    current = accepted;
  }
}

/**
 * Checks a builder's args as soon as each part is known, independently of the others: during a preview
 * where some inputs are still unknown (a cluster created in the same stack, file text from another
 * resource), the parts that are known are still checked. The result fails with the errors found and is
 * otherwise empty; combine it into what the component registers so that the errors reach the user.
 */
export function checkedAsKnown<A>(
  build: (args: A) => unknown,
  args: Record<string, unknown>,
  path: PathMap = "",
): pulumi.Output<void> {
  const check = async () => {
    const unknowns: Unknown[] = [];
    const values = await resolveKnown(args, [], unknowns);
    const errors = errorsOfKnownParts(build, values, unknowns);
    if (errors.length > 0) throw toPropertyError(errors, path);
  };
  return pulumi.output(check()) as pulumi.Output<void>;
}
