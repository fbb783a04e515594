import * as pulumi from "@pulumi/pulumi";
import { inspect } from "node:util";
import { InputError, InputErrors } from "../builders/errors";
import { isPlainObject } from "../builders/machineconfiguration/json";

/** A property's problem as the user reads it: where, then what is allowed. */
type Problem = { propertyPath: string; reason: string };

const line = (p: Problem) => `${p.propertyPath}: ${p.reason}`;

/**
 * The SDK prefixes `error serializing property "<name>": ` to the message of an error each time a
 * resource input that carries it is serialized, and the same error reaches many inputs; it prints the
 * stack of errors it does not know. An input error is about the user's program, not this library's
 * frames: it carries no stack, and the SDK's program entry point (which prints an unhandled error with
 * util.inspect) prints `shown` alone.
 */
function plain<E extends Error>(error: E, message: string, shown: string): E {
  Object.defineProperty(error, "message", { get: () => message, set: () => undefined, enumerable: false });
  error.stack = message;
  // util.inspect lists an error's fields (the properties and the rejected promise the SDK attaches as
  // `promise`): the user reads what `shown` says instead.
  for (const key of Object.keys(error)) Object.defineProperty(error, key, { enumerable: false });
  Object.defineProperty(error, "promise", { value: undefined, writable: true, enumerable: false });
  Object.defineProperty(error, inspect.custom, { value: () => shown, enumerable: false });
  return error;
}

/**
 * Builders report bad input as InputError (they know nothing of Pulumi); components re-raise it as
 * `pulumi.InputPropertyError`, whose `reason` says what is allowed without repeating the path: the
 * engine shows it as `property <path> has a problem: <reason>`.
 */
export function inputPropertyError(
  propertyPath: string,
  reason: string,
  of?: string,
): pulumi.InputPropertyError {
  const message = `${of ? `${of}: ` : ""}${line({ propertyPath, reason })}`;
  return plain(new pulumi.InputPropertyError({ propertyPath, reason }), message, message);
}

/**
 * Several bad inputs at once, one `pulumi.InputPropertiesError` (one InputPropertyError for a single
 * one). Its message is a heading, which the engine follows with a line per property; a program run
 * prints the heading with those lines. `of` names the component, as `InfraNodePool "infra"`.
 */
export function inputPropertiesError(
  problems: readonly Problem[],
  of?: string,
): pulumi.InputPropertiesError | pulumi.InputPropertyError {
  const errors = problems.filter((p, i) => problems.findIndex((q) => line(q) === line(p)) === i);
  if (errors.length === 1) return inputPropertyError(errors[0].propertyPath, errors[0].reason, of);
  const heading = `${of ? `${of}: ` : ""}${errors.length} inputs are invalid`;
  const shown = `${heading}:\n${errors.map((e) => `  ${line(e)}`).join("\n")}`;
  return plain(new pulumi.InputPropertiesError({ message: heading, errors }), heading, shown);
}

/** The problems an error reports about inputs; anything else is re-thrown. */
function problemsOf(e: unknown): readonly Problem[] {
  if (pulumi.InputPropertiesError.isInstance(e)) return e.errors;
  if (pulumi.InputPropertyError.isInstance(e)) return [{ propertyPath: e.propertyPath, reason: e.reason }];
  return InputErrors.of(e);
}

/** Runs a builder, re-raising its InputError as InputPropertyError (several as InputPropertiesError). */
export function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError || e instanceof InputErrors) throw inputPropertiesError(InputErrors.of(e));
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
): pulumi.Output<void> {
  return failingOutput(checkKnownParts(build, args));
}

/**
 * The Output of a check that fails by throwing, with a handler for its failure attached last. Pulumi's
 * closure serialization turns the V8 debugger on (an inspector session), and with it on, each throw
 * makes V8 look for a reject handler among the promises that depend on the throwing function's, path
 * by path (Isolate::PromiseHasUserDefinedRejectHandler), newest handler first: a component's check
 * has every one of its resources' inputs behind it, so a bad input cost some 0.2 s of CPU per
 * component. The handler attached last ends the search at once; the failure still reaches every
 * dependent through the Output.
 */
function failingOutput(check: Promise<void>): pulumi.Output<void> {
  const output = pulumi.output(check) as pulumi.Output<void>;
  check.catch(() => undefined);
  return output;
}

async function checkKnownParts<A>(build: (args: A) => unknown, args: Record<string, unknown>): Promise<void> {
  const unknowns: Unknown[] = [];
  const values = await resolveKnown(args, [], unknowns);
  const errors = errorsOfKnownParts(build, values, unknowns);
  if (errors.length > 0) throw inputPropertiesError(errors);
}

/**
 * Every input check of one component, so that the user reads all its problems in one error, as
 * pulumi-eks reports them. Plain values are checked as the component is constructed, Inputs as soon as
 * each is known; a bad plain value does not throw, so that the program goes on and the checks of the
 * other inputs (and of the other components) still run. Whatever the component declares waits for
 * `valid()`: nothing is declared from bad input, and every output fails with the same error.
 */
export class InputChecks {
  private readonly found: Problem[] = [];
  private readonly pending: Promise<unknown>[] = [];
  private combined: pulumi.Output<void> | undefined;
  private gathered = false;

  /** `of` names the component in the error, as `InfraNodePool "infra"`. */
  constructor(private readonly of: string) {}

  /**
   * Checks plain values now: the result of `fn`, or `standIn` when it found problems (the component
   * goes on with it, and `valid()` fails).
   */
  now<T>(fn: () => T, standIn: T): T {
    this.open();
    try {
      return fn();
    } catch (e) {
      this.found.push(...problemsOf(e));
      return standIn;
    }
  }

  /**
   * A check that fails with input errors (a component's own). Its failure is read here: an Output
   * whose failure nothing reads would be reported to the user on its own, beside the combined one.
   */
  add(check: pulumi.Output<unknown>): void {
    this.open();
    const output = check as unknown as OutputInternals & { isSecret: Promise<boolean> };
    for (const settled of [output.isKnown, output.isSecret]) settled.catch(() => undefined);
    this.pending.push(output.promise());
  }

  /** Checks `args` with `build` as soon as each part is known (see checkedAsKnown). */
  asKnown<A>(build: (args: A) => unknown, args: Record<string, unknown>): void {
    this.open();
    this.pending.push(checkKnownParts(build, args));
  }

  private open(): void {
    if (this.gathered) throw new Error(`${this.of}: an input check was added after the checks were gathered`);
  }

  /**
   * Resolves once every check passed; else fails with every problem found, in one error. The checks
   * are the ones added while the component is constructed (they are gathered once that is done).
   */
  valid(): pulumi.Output<void> {
    this.combined ??= failingOutput(this.settle());
    return this.combined;
  }

  private async settle(): Promise<void> {
    // The constructor that adds the checks runs to its end before this continues.
    await Promise.resolve();
    this.gathered = true;
    const outcomes = await Promise.allSettled(this.pending);
    const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    // Inputs that an enclosing component checked and held back fail with its error: the same error
    // object, so that the user reads it once.
    const enclosing = failures.find((e) => combinedErrors.has(e as object));
    if (enclosing !== undefined) throw enclosing;
    // A check that reads through another (the cluster's reads through the kubeconfig's) fails with its error.
    const problems = uniqueProblems([...this.found, ...failures.flatMap(problemsOf)]);
    if (problems.length === 0) return;
    const error = inputPropertiesError(problems, this.of);
    combinedErrors.add(error);
    throw error;
  }
}

function uniqueProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify([p.propertyPath, p.reason]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The errors of InputChecks, each of which stands for every problem of a component's inputs. */
const combinedErrors = new WeakSet<object>();

/**
 * Runs `fn`, re-raising the input errors it throws (a builder's, or a platform lookup's) under the
 * component's name `of` (`InfraNodePool "infra": aws.capacityReservationId: ...`), as InputChecks
 * reports the checks made while the component is constructed. Other errors pass unchanged.
 */
export async function naming<T>(of: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (combinedErrors.has(e as object)) throw e;
    const error = inputPropertiesError(problemsOf(e), of);
    combinedErrors.add(error);
    throw error;
  }
}
