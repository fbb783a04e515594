import * as pulumi from "@pulumi/pulumi";
import { InputError } from "../builders/errors";

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
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError) {
      const propertyPath =
        typeof path === "function"
          ? path(e.propertyPath)
          : path
            ? e.under(path).propertyPath
            : e.propertyPath;
      throw inputPropertyError(propertyPath, e.reason);
    }
    throw e;
  }
}
