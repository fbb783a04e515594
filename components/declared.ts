import * as pulumi from "@pulumi/pulumi";
import { isPlainObject } from "../builders/machineconfiguration/json";

// The SDK keeps these internal; they are how a value is awaited without waiting for parts a preview
// does not know.
type OutputInternals = { isKnown: Promise<boolean>; promise(): Promise<unknown> };

/** Each Output's settling, awaited once however many children take it. */
const settling = new WeakMap<object, Promise<void>>();

/**
 * Resolves once everything in `value` has settled: each Output known (or, at a preview, unknown), each
 * resource registered; fails with the first failure among them.
 */
async function settled(value: unknown): Promise<void> {
  if (value === null || typeof value !== "object") return;
  if (pulumi.Resource.isInstance(value)) return settled(value.urn);
  if (pulumi.Output.isInstance(value)) {
    let done = settling.get(value);
    if (!done) {
      const output = value as unknown as OutputInternals;
      done = output.isKnown.then((known) => (known ? output.promise().then(settled) : undefined));
      settling.set(value, done);
    }
    return done;
  }
  if (value instanceof Promise) return settled(await value);
  if (Array.isArray(value)) {
    await Promise.all(value.map(settled));
    return;
  }
  if (isPlainObject(value)) await Promise.all(Object.values(value).map(settled));
}

/**
 * Declares a child once what it takes (its args and options: inputs, dependencies, provider) can no
 * longer fail; when any of it fails, declares nothing and fails with that error. The SDK registers a
 * resource whose input fails without ever settling the resource's own outputs (runtime/resource.ts,
 * registerResource: a failed prepareResource leaves its resolvers pending), and reports each of them
 * when the process exits ("promises were still active") with exit code 1. A program run stops at its
 * first error anyway; a unit test that expects one goes on, and its mocha process would fail though
 * every assertion passed. So bad input and a failed read leave nothing pending: what a component
 * declares from them is never declared. At a preview an unknown part counts as settled: the child is
 * declared with it unknown, as the SDK would.
 */
export function declared<T>(takes: unknown, declare: () => T): pulumi.Output<T> {
  return pulumi.output(settled(takes).then(() => true)).apply(() => declare());
}

/** `new Type(name, args, opts)` once its args and options can no longer fail (see declared). */
export function child<A, O, T>(
  Type: new (name: string, args: A, opts: O) => T,
  name: string,
  args: A,
  opts: O,
): pulumi.Output<T> {
  return declared([args, opts], () => new Type(name, args, opts));
}
