import * as pulumi from "@pulumi/pulumi";
import { InputError, InputErrors } from "../builders/errors";

/**
 * Builders report bad input as InputError (they know nothing of Pulumi); components re-raise it as
 * `pulumi.InputPropertyError`, which `pulumi preview` prints against the property, before anything
 * reaches a cluster. `prefix` places a nested builder's path under the component's Args.
 */
export function inputPropertyError(propertyPath: string, reason: string): pulumi.InputPropertyError {
  return new pulumi.InputPropertyError({ propertyPath, reason: `${propertyPath}: ${reason}` });
}

/**
 * Runs a builder, re-raising its InputError as InputPropertyError. `path` places the builder's property
 * path where the user wrote it: a prefix for a nested builder, or a function for renamed properties.
 */
export function checked<T>(fn: () => T, path: string | ((builderPath: string) => string) = ""): T {
  const place = (e: InputError) =>
    typeof path === "function" ? path(e.propertyPath) : path ? e.under(path).propertyPath : e.propertyPath;
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError) throw inputPropertyError(place(e), e.reason);
    if (e instanceof InputErrors) {
      throw inputPropertiesError(
        e.errors.map((error) => ({ propertyPath: place(error), reason: error.reason })),
      );
    }
    throw e;
  }
}

/**
 * Several bad inputs of one component at once. The engine prints each under its property; the message
 * lists them too, for runtimes that show only the message.
 */
export function inputPropertiesError(
  errors: ReadonlyArray<{ propertyPath: string; reason: string }>,
): pulumi.InputPropertiesError {
  const details = errors.map((e) => ({
    propertyPath: e.propertyPath,
    reason: `${e.propertyPath}: ${e.reason}`,
  }));
  return new pulumi.InputPropertiesError({
    message: `${details.length} inputs are invalid:\n${details.map((d) => `  ${d.reason}`).join("\n")}`,
    errors: details,
  });
}
