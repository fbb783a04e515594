import { InputError } from "../errors";

/** The pattern of a Kubernetes resource.Quantity, as the CRDs declare it. */
const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * A quantity (`10G`, `64Ki`, `-1`, or a plain integer) and its value rounded up as resource.Quantity.Value()
 * does, which is what the MCO compares against its limits.
 */
export function requireQuantity(path: string, value: unknown): { quantity: number | string; value: number } {
  if (typeof value === "number" && Number.isInteger(value)) return { quantity: value, value };
  const match = typeof value === "string" ? QUANTITY.exec(value) : null;
  if (!match) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a quantity: use a whole number or a string such as "8Ki", "10G" or "-1"`,
    );
  }
  const text = value as string;
  const suffix = match[6] ?? "";
  const exponent = /^[eE][-+]?[0-9.]/.test(suffix);
  const number = exponent ? Number(text) : Number(text.slice(0, text.length - suffix.length));
  return { quantity: text, value: Math.ceil(number * (exponent ? 1 : SUFFIXES[suffix])) };
}
