import { closest, isDnsLabel, isDnsSubdomain, isLabelValue, isQualifiedName } from "../primitives/names";
import { collectErrors, InputError } from "./errors";

/**
 * Checks shared by every builder. Each takes the property path the user would recognise and throws an
 * InputError that says what is allowed.
 */

/** An RFC 1123 label: what Kubernetes accepts as a role suffix or a namespace. */
export function requireDnsLabel(path: string, value: unknown): string {
  if (!isDnsLabel(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a DNS label: use 1-63 lower-case letters, digits or '-', starting and ending with a letter or digit`,
    );
  }
  return value;
}

/** An RFC 1123 subdomain: what Kubernetes accepts as the name of most objects. */
export function requireDnsSubdomain(path: string, value: unknown): string {
  if (!isDnsSubdomain(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a valid object name: use at most 253 lower-case letters, digits, '-' or '.', starting and ending with a letter or digit`,
    );
  }
  return value;
}

export function requireNonEmptyString(path: string, value: unknown): string {
  if (typeof value !== "string" || value.trim().length === 0) {
    throw new InputError(path, `must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function requireNonNegativeInteger(path: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InputError(path, `must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A Go duration as the machine-api parses it (`300s`, `1h30m`, `1.5h`). */
const DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

export function requireDuration(path: string, value: unknown): string {
  if (typeof value !== "string" || !DURATION.test(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a duration: use a number with a unit (ns, us, ms, s, m, h), e.g. "300s" or "10m"`,
    );
  }
  return value;
}

export function requireOneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not allowed: use one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`,
    );
  }
  return value as T;
}

/**
 * Throws at `<path>[i]<field>` when two items share a key: the user sees the second occurrence and is told
 * where the first one is.
 */
export function requireUnique<T>(
  path: string,
  items: readonly T[],
  key: (item: T) => string,
  what: string,
  field = "",
): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first !== undefined) {
      throw new InputError(
        `${path}[${i}]${field}`,
        `${what} ${JSON.stringify(k)} is listed twice (also at ${path}[${first}]): each ${what} may appear once`,
      );
    }
    seen.set(k, i);
  });
}

export function requireBoolean(path: string, value: unknown): boolean {
  if (typeof value !== "boolean") {
    throw new InputError(path, `must be true or false, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function requireInteger(path: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InputError(path, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A list given as an array, or an error at `path` naming what the items must be. */
export function requireArray<T>(path: string, value: readonly T[] | undefined, items: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InputError(path, `must be a list of ${items}`);
  return value;
}

/**
 * An object whose fields are all among `known`, or an error at `path` (the field's path for one that is
 * not known, naming the closest known one): a field the library does not place must not vanish.
 */
export function requireFields(path: string, value: unknown, known: readonly string[], what: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(path, `must be an object of ${what} fields (${known.join(", ")})`);
  }
  const at = (field: string) => (path ? `${path}.${field}` : field);
  collectErrors(
    Object.keys(value)
      .filter((field) => !known.includes(field))
      .map((field) => () => {
        const near = closest(field, known);
        throw new InputError(
          at(field),
          near
            ? `is not a ${what} field: did you mean ${near}?`
            : `is not a ${what} field: use ${known.join(", ")}`,
        );
      }),
  );
}

const LABEL_KEY_RULE =
  "keys are an optional DNS subdomain prefix and '/' (e.g. node-role.kubernetes.io/) and a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const LABEL_VALUE_RULE =
  "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty";

/** A label (or taint) key as the API server validates it. */
export function requireLabelKey(path: string, key: unknown, what = "label key"): string {
  if (!isQualifiedName(key)) {
    throw new InputError(path, `${JSON.stringify(key)} is not a valid ${what}: ${LABEL_KEY_RULE}`);
  }
  return key;
}

/** A label (or taint) value as the API server validates it. */
export function requireLabelValue(path: string, value: unknown, what = "label value"): string {
  if (!isLabelValue(value)) {
    throw new InputError(path, `${JSON.stringify(value)} is not a valid ${what}: ${LABEL_VALUE_RULE}`);
  }
  return value;
}

/** Kubernetes label keys and values, as the API server validates them, every problem at once. */
export function requireLabels(
  path: string,
  labels: Record<string, string> | undefined,
): Record<string, string> {
  if (labels === undefined) return {};
  // Every label checked, and every problem reported at once.
  collectErrors(
    Object.entries(labels).map(([key, value]) => () => {
      requireLabelKey(`${path}["${key}"]`, key);
      requireLabelValue(`${path}["${key}"]`, value);
    }),
  );
  return labels;
}

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

/** Every taint checked, and every problem reported at once. */
export function requireTaints(path: string, taints: readonly Taint[] | undefined): Taint[] {
  const result = collectErrors(
    (taints ?? []).map((t, i) => () => {
      const at = `${path}[${i}]`;
      const [key, value, effect] = collectErrors([
        () => requireLabelKey(`${at}.key`, t.key, "taint key"),
        () => (t.value === undefined ? undefined : requireLabelValue(`${at}.value`, t.value, "taint value")),
        () => requireOneOf(`${at}.effect`, t.effect, TAINT_EFFECTS),
      ]);
      return value === undefined ? { key, effect } : { key, value, effect };
    }),
  );
  requireUnique(path, result, (t) => `${t.key}:${t.effect}`, "taint");
  return result;
}
