/**
 * A waiter declared once: one schema (its inputs with their checks, its outputs, its id and the waiting
 * core's wait, observe or remove) from which both the dynamic provider and the resource class are
 * derived, with the resource's Args and output properties inferred from it. Resources carry a small
 * provider that finds this one through the waiter's module (`locate`); from sources, and for a waiter
 * declared in a program, the whole provider is serialized, as `common.ts` says: the schema it captures
 * holds plain functions and object literals only.
 */
import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import type { Evaluation, ProgressListener } from "../waiting";
import type { Taint } from "../../builders/validation";
import {
  checkName,
  checkNames,
  CheckFailure,
  RemovalArgs,
  RemovalInputs,
  removalProps,
  removalProvider,
  UNKNOWN,
  WaiterArgs,
  WaiterInputs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

/**
 * One input: how the provider checks it (the value as the engine passes it, missing and unknown
 * included) and, for the types only, the value the provider receives, the Args type and whether it is
 * required.
 */
export interface InputSpec<Value, Arg, Required extends boolean> {
  readonly required: Required;
  check(value: unknown, property: string): CheckFailure[];
  readonly types?: { value: Value; arg: Arg };
}

type AnyInputSpec = InputSpec<unknown, unknown, boolean>;
export type InputSpecs = Record<string, AnyInputSpec>;

type RequiredKeys<S extends InputSpecs> = {
  [K in keyof S]: S[K]["required"] extends true ? K : never;
}[keyof S];
type RequiredSpecs<S extends InputSpecs> = Pick<S, RequiredKeys<S>>;
type OptionalSpecs<S extends InputSpecs> = Omit<S, RequiredKeys<S>>;
type ValueOf<S extends AnyInputSpec> = NonNullable<S["types"]>["value"];
type ArgOf<S extends AnyInputSpec> = NonNullable<S["types"]>["arg"];

/** The inputs as the provider receives them. */
export type InputValues<S extends InputSpecs> = {
  [K in keyof RequiredSpecs<S>]: ValueOf<S[K]>;
} & { [K in keyof OptionalSpecs<S>]?: ValueOf<S[K]> };

/** The inputs as the resource takes them. */
export type InputArgs<S extends InputSpecs> = {
  [K in keyof RequiredSpecs<S>]: ArgOf<S[K]>;
} & { [K in keyof OptionalSpecs<S>]?: ArgOf<S[K]> };

/** Inputs echoed as the resource's outputs: an optional one left unset is no property at all. */
type InputProperties<S extends InputSpecs> = {
  readonly [K in keyof RequiredSpecs<S>]: Output<ValueOf<S[K]>>;
} & { readonly [K in keyof OptionalSpecs<S>]?: Output<ValueOf<S[K]>> };

/** Whether an input must be given: a literal, so that the Args type follows (overloads, not a generic, keep it so). */
interface Presence<R extends boolean> {
  required: R;
}

/** A Kubernetes object name (DNS subdomain). */
export function objectName(options: Presence<true>): InputSpec<string, Input<string>, true>;
export function objectName(options?: Presence<false>): InputSpec<string, Input<string>, false>;
export function objectName(options?: Presence<boolean>): InputSpec<string, Input<string>, boolean> {
  const required = options?.required ?? false;
  return { required, check: (value, property) => checkName({ [property]: value }, property, required) };
}

/** A list of object names; `required` demands at least one. */
export function objectNames(options: Presence<true>): InputSpec<string[], Input<Input<string>[]>, true>;
export function objectNames(options?: Presence<false>): InputSpec<string[], Input<Input<string>[]>, false>;
export function objectNames(
  options?: Presence<boolean>,
): InputSpec<string[], Input<Input<string>[]>, boolean> {
  const required = options?.required ?? false;
  return { required, check: (value, property) => checkNames({ [property]: value }, property, required) };
}

/** Label names to string values. */
export function labelMap(): InputSpec<Record<string, string>, Input<Record<string, Input<string>>>, false> {
  return {
    required: false,
    check: (value, property) =>
      value === undefined ||
      value === null ||
      (typeof value === "object" &&
        !Array.isArray(value) &&
        Object.values(value).every((v) => typeof v === "string"))
        ? []
        : [{ property, reason: `${property} must map label names to string values` }],
  };
}

/** A switch, off unless true. */
export function flag(): InputSpec<boolean, Input<boolean>, false> {
  return {
    required: false,
    check: (value, property) =>
      value === undefined || value === null || typeof value === "boolean"
        ? []
        : [{ property, reason: `${property} must be true or false` }],
  };
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** Node taints: each a key, an optional value and an effect Kubernetes knows. */
export function taintList(): InputSpec<Taint[], Input<Input<Taint>[]>, false> {
  return {
    required: false,
    check: (value, property) =>
      value === undefined ||
      value === null ||
      (Array.isArray(value) &&
        value.every(
          (t: Partial<Record<keyof Taint, unknown>> | null) =>
            typeof t === "object" &&
            t !== null &&
            typeof t.key === "string" &&
            (t.value === undefined || typeof t.value === "string") &&
            TAINT_EFFECTS.includes(t.effect as string),
        ))
        ? []
        : [
            {
              property,
              reason: `${property} must be a list of taints, each a key, an optional value and an effect (${TAINT_EFFECTS.join(", ")})`,
            },
          ],
  };
}

/** One of a fixed set of strings. */
export function oneOf<T extends string>(allowed: readonly T[]): InputSpec<T, Input<T>, true> {
  const listed = [...allowed];
  return {
    required: true,
    check: (value, property) =>
      listed.includes(value as T)
        ? []
        : [
            {
              property,
              reason: `${property} must be one of ${listed.join(", ")}, got ${JSON.stringify(value)}`,
            },
          ],
  };
}

/** A JSON object or list kept as given (a component's declared record); `list` demands a list. */
export function recorded<T>(shape: "object" | "list"): InputSpec<T, Input<T>, false> {
  return {
    required: false,
    check: (value, property) =>
      value === undefined ||
      value === null ||
      (typeof value === "object" && Array.isArray(value) === (shape === "list"))
        ? []
        : [{ property, reason: `${property} must be ${shape === "list" ? "a list" : "an object"}` }],
  };
}

/**
 * One output. It is always set once the waiter has run: from the core's result, else `fallback`, else
 * null (an absent output reads as unknown at every preview, and so changes whatever takes it as input).
 */
export interface OutputSpec<T, Optional extends boolean> {
  readonly fallback?: T;
  readonly types?: { value: T; optional: Optional };
}

type AnyOutputSpec = OutputSpec<unknown, boolean>;
export type OutputSpecs = Record<string, AnyOutputSpec>;

/** An output the core's result always carries. */
export function output<T>(): OutputSpec<T, false>;
/** An output the core's result may lack: `fallback` stands in. */
export function output<T>(fallback: T): OutputSpec<T, true>;
export function output<T>(...fallback: [T?]): OutputSpec<T, boolean> {
  return fallback.length === 0 ? {} : { fallback: fallback[0] };
}

type OutputValue<S extends AnyOutputSpec> = NonNullable<S["types"]>["value"];
type OptionalOutputKeys<S extends OutputSpecs> = {
  [K in keyof S]: NonNullable<S[K]["types"]>["optional"] extends true ? K : never;
}[keyof S];

/** What the core's result must carry for the outputs `S`. */
export type ResultFor<S extends OutputSpecs> = {
  [K in keyof Omit<S, OptionalOutputKeys<S>>]: OutputValue<S[K]>;
} & { [K in keyof Pick<S, OptionalOutputKeys<S>>]?: OutputValue<S[K]> };

type OutputProperties<S extends OutputSpecs> = { readonly [K in keyof S]: Output<OutputValue<S[K]>> };

/** The failures of every input of `inputs` in `news`, in their declared order; unknown values pass. */
function checkInputs(inputs: InputSpecs, news: Record<string, unknown>): CheckFailure[] {
  return Object.entries(inputs).flatMap(([key, spec]) =>
    news[key] === UNKNOWN ? [] : spec.check(news[key], key),
  );
}

/** The outputs of `result`, each present. */
function outputValues(outputs: OutputSpecs, result: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(outputs).map(([key, spec]) => [key, result[key] ?? spec.fallback ?? null]),
  );
}

/** The resource's own inputs among `args`, as the props it registers take them. */
function ownInputs(inputs: InputSpecs, args: object): Record<string, Input<unknown> | undefined> {
  return Object.fromEntries(Object.keys(inputs).map((k) => [k, (args as Record<string, unknown>)[k]]));
}

type ResourceClass<Args, Properties> = {
  new (name: string, args: Args, opts?: CustomResourceOptions): dynamic.Resource & Properties;
  /** The dynamic provider every instance registers with. */
  readonly provider: dynamic.ResourceProvider;
};

/**
 * How the provider each resource carries finds the whole one where it runs:
 * `(): ProviderOf => self.<kind>Provider`, `self` being the waiter's own module imported as a namespace
 * and `<kind>Provider` its export of the class's `.provider` (a `require` of the installed package once
 * serialized). Deployed stacks require that module and name: keep them.
 */
type Locate = () => ProviderOf;

/** What `locate` returns (annotate it so: the provider it reads is the one being declared). */
export type ProviderOf = dynamic.ResourceProvider;

/**
 * The provider a resource carries in `__provider`. Pulumi serializes it with everything it reaches into
 * every resource's inputs and outputs in state, and analyses it anew at each program run (the fixed cost
 * of a program run). Each method here looks the whole provider up through `locate` when it runs; with
 * the package installed, Pulumi writes the module `locate` reads as a `require` of it, so a waiter
 * carries about 2 KB instead of 16 KB. Without `locate` (a waiter declared in a program) the whole
 * provider is carried.
 */
export function carriedProvider(
  provider: dynamic.ResourceProvider,
  locate: Locate | undefined,
): dynamic.ResourceProvider {
  if (!locate) return provider;
  // Only the methods the provider has: the host treats a missing `read` or `delete` differently from one that fails.
  return Object.fromEntries(
    Object.keys(provider).map((method) => [
      method,
      (...args: unknown[]) =>
        (locate() as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args),
    ]),
  ) as unknown as dynamic.ResourceProvider;
}

function resourceClass<Args, Properties>(
  kind: string,
  provider: dynamic.ResourceProvider,
  locate: Locate | undefined,
  props: (args: Args, opts: CustomResourceOptions | undefined) => Record<string, Input<unknown> | undefined>,
): ResourceClass<Args, Properties> {
  const carried = carriedProvider(provider, locate);
  class WaiterResource extends dynamic.Resource {
    static readonly provider = provider;
    constructor(name: string, args: Args, opts?: CustomResourceOptions) {
      // The type token stays `pulumi-nodejs:dynamic:<kind>`: deployed stacks know the waiter by it.
      super(carried, name, props(args, opts), waiterOptions(opts), undefined, kind);
    }
  }
  return WaiterResource as unknown as ResourceClass<Args, Properties>;
}

/** A waiter: waits on create and update, reports its outputs, and on delete waits for nothing. */
export interface WaiterSchema<In extends InputSpecs, Out extends OutputSpecs, R extends ResultFor<Out>> {
  /** The resource type (`pulumi-nodejs:dynamic:<kind>`), also used in messages. */
  kind: string;
  /** Its own inputs, in the order diffs list them (the kubeconfig, hash and deadline are added). */
  inputs: In;
  /** Its outputs besides `durationSeconds`. */
  outputs: Out;
  /** A stable id naming what is awaited. */
  id(inputs: InputValues<In>): string;
  locate?: Locate;
  /**
   * The waiting core's wait, with the inputs (which carry the core's option names), the deadline and
   * the progress listener. Call the core function inside an arrow: a function value is serialized
   * whole, a call through its module becomes a `require` of the installed package.
   */
  wait(
    options: InputValues<In> & WaiterInputs & { timeoutMs: number; onProgress: ProgressListener },
  ): Promise<{ result: R }>;
  /** The waiting core's evaluation without waiting or changing anything, for `read`. */
  observe(options: InputValues<In> & WaiterInputs & { timeoutMs: number }): Promise<Evaluation<R>>;
  /** What the waiter does beside waiting, around its provider (see `keepingRolloutRecord`). */
  extend?(provider: dynamic.ResourceProvider): dynamic.ResourceProvider;
}

export type WaiterResourceClass<In extends InputSpecs, Out extends OutputSpecs> = ResourceClass<
  InputArgs<In> & WaiterArgs,
  InputProperties<In> & OutputProperties<Out> & { readonly durationSeconds: Output<number> }
>;

/** The resource class of a waiter, its provider at `.provider`. */
export function defineWaiter<In extends InputSpecs, Out extends OutputSpecs, R extends ResultFor<Out>>(
  schema: WaiterSchema<In, Out, R>,
): WaiterResourceClass<In, Out> {
  type I = InputValues<In> & WaiterInputs;
  const own = Object.keys(schema.inputs);
  const waiter = waiterProvider<I, Record<string, unknown>, R>({
    kind: schema.kind,
    inputKeys: ["kubeconfig", ...own, "contentHash", "timeoutSeconds", "created"],
    check: (news) => checkInputs(schema.inputs, news),
    id: (inputs) => schema.id(inputs),
    wait: (options) => schema.wait(options),
    observe: (options) => schema.observe(options),
    outputs: (result) => outputValues(schema.outputs, result as Record<string, unknown>),
  });
  const provider = schema.extend ? schema.extend(waiter) : waiter;
  const outputKeys = [...Object.keys(schema.outputs), "durationSeconds"];
  return resourceClass(schema.kind, provider, schema.locate, (args: InputArgs<In> & WaiterArgs, opts) =>
    waiterProps(args, opts, ownInputs(schema.inputs, args), outputKeys),
  );
}

/** A removal guard: nothing to do on create; on delete, the waiting core's wait for the removal. */
export interface RemovalSchema<In extends InputSpecs, R> {
  kind: string;
  /** Its own inputs (the kubeconfig and the delete's deadline are added). */
  inputs: In;
  id(inputs: InputValues<In>): string;
  locate?: Locate;
  /** What `read` reports. */
  observe(options: InputValues<In> & RemovalInputs & { timeoutMs: number }): Promise<Evaluation<R>>;
  /** The wait on delete, called as `WaiterSchema.wait` is, with the delete's deadline. */
  remove(
    options: InputValues<In> & RemovalInputs & { timeoutMs: number; onProgress: ProgressListener },
  ): Promise<unknown>;
}

export type RemovalResourceClass<In extends InputSpecs> = ResourceClass<
  InputArgs<In> & RemovalArgs,
  InputProperties<In>
>;

/** The resource class of a removal guard, its provider at `.provider`. */
export function defineRemoval<In extends InputSpecs, R>(
  schema: RemovalSchema<In, R>,
): RemovalResourceClass<In> {
  const provider = removalProvider<InputValues<In> & RemovalInputs, R>({
    kind: schema.kind,
    inputKeys: Object.keys(schema.inputs),
    check: (news) => checkInputs(schema.inputs, news),
    id: (inputs) => schema.id(inputs),
    observe: (options) => schema.observe(options),
    remove: (options) => schema.remove(options),
  });
  return resourceClass(schema.kind, provider, schema.locate, (args: InputArgs<In> & RemovalArgs, opts) =>
    removalProps(args, opts, ownInputs(schema.inputs, args)),
  );
}

/** The Args a waiter or removal guard class takes. */
export type ArgsOf<C extends abstract new (...args: never[]) => unknown> = ConstructorParameters<C>[1];
