import { InputError } from "../errors";

/**
 * Checks for free-form values that end up in a CRD field declared `x-kubernetes-preserve-unknown-fields`.
 * They are generic (could move to ../validation.ts): nothing here is specific to machine configuration.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A plain object whose every value survives JSON as-is (no undefined, functions, NaN, Dates, class instances). */
export function requirePlainObject(path: string, value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new InputError(path, `must be a plain object of JSON values, got ${describe(value)}`);
  }
  requireJson(path, value);
  return value;
}

function requireJson(path: string, value: unknown): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InputError(path, `must be a finite number, got ${value}`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => requireJson(`${path}[${i}]`, v));
    return;
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) requireJson(`${path}.${k}`, v);
    return;
  }
  throw new InputError(
    path,
    `must be a JSON value (string, number, boolean, null, list or plain object), got ${describe(value)}`,
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return `an instance of ${value.constructor?.name ?? "an unknown class"}`;
  if (typeof value === "function") return "a function";
  return typeof value === "undefined" ? "undefined" : `${typeof value} ${String(value)}`;
}
