/**
 * The quantity library (k8s.io/apiserver pkg/cel/library/quantity.go): `quantity(s)`, `isQuantity(s)`,
 * `isInteger()`, `asInteger()`, `asApproximateFloat()`, `sign()`, `add()`, `sub()`, `isGreaterThan()`,
 * `isLessThan()`, `compareTo()`. Quantities parse as resource.ParseQuantity does (binary suffixes Ki to
 * Ei, decimal n to E, exponents e/E), held exactly in nano units, finer values rounded up as the
 * Quantity type rounds them; equal quantities are equal whatever their spelling (`1` == `1000m`).
 */
import { CelScalar, celFunc, celMethod, CelFunc } from "@bufbuild/cel";
import { opaque, payload } from "../opaque";

const { STRING, BOOL, INT, DOUBLE, DYN } = CelScalar;

const QUANTITY = "kubernetes.Quantity";
const NANO = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const BINARY: Record<string, bigint> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** resource.ParseQuantity, as nano units; an error message when the text is not a quantity. */
export function parseQuantity(text: string): bigint | string {
  const match = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$/.exec(text);
  if (!match) return FORMAT_ERROR;
  const [, sign, number, suffix] = match;
  const [whole, fraction = ""] = number.split(".");
  let exponent10 = -fraction.length;
  let multiplier = 1n;
  if (suffix in BINARY) multiplier = 1024n ** BINARY[suffix];
  else if (suffix in DECIMAL) exponent10 += DECIMAL[suffix];
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) exponent10 += Number(suffix.slice(1));
  else
    return /^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix) ? "unable to parse quantity's suffix" : FORMAT_ERROR;
  const digits = BigInt(whole + fraction) * multiplier;
  const scale = exponent10 + 9;
  let nanos: bigint;
  if (scale >= 0) nanos = digits * 10n ** BigInt(scale);
  else {
    const divisor = 10n ** BigInt(-scale);
    nanos = digits / divisor + (digits % divisor === 0n ? 0n : 1n);
  }
  return sign === "-" ? -nanos : nanos;
}

const quantityValue = (nanos: bigint) => opaque(QUANTITY, nanos, nanos.toString());
const nanosOf = (v: unknown, fn: string) => payload<bigint>(v, QUANTITY, fn);

function toQuantity(text: string): bigint {
  const parsed = parseQuantity(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

/** The other operand of add/sub/compare: a quantity or an int. */
const operand = (v: unknown, fn: string) => (typeof v === "bigint" ? v * NANO : nanosOf(v, fn));

const integral = (nanos: bigint) =>
  nanos % NANO === 0n && nanos / NANO <= INT64_MAX && nanos / NANO >= INT64_MIN;

export const QUANTITY_LIBRARY: CelFunc[] = [
  celFunc("quantity", [STRING], DYN, (s) => quantityValue(toQuantity(s))),
  celFunc("isQuantity", [STRING], BOOL, (s) => typeof parseQuantity(s) !== "string"),
  celMethod("isInteger", DYN, [], BOOL, function () {
    return integral(nanosOf(this, "isInteger"));
  }),
  celMethod("asInteger", DYN, [], INT, function () {
    const nanos = nanosOf(this, "asInteger");
    if (!integral(nanos)) throw new Error("cannot convert value to integer");
    return nanos / NANO;
  }),
  celMethod("asApproximateFloat", DYN, [], DOUBLE, function () {
    return Number(nanosOf(this, "asApproximateFloat")) / 1e9;
  }),
  celMethod("sign", DYN, [], INT, function () {
    const nanos = nanosOf(this, "sign");
    return nanos > 0n ? 1n : nanos < 0n ? -1n : 0n;
  }),
  celMethod("add", DYN, [DYN], DYN, function (other) {
    return quantityValue(nanosOf(this, "add") + operand(other, "add"));
  }),
  celMethod("sub", DYN, [DYN], DYN, function (other) {
    return quantityValue(nanosOf(this, "sub") - operand(other, "sub"));
  }),
  celMethod("isGreaterThan", DYN, [DYN], BOOL, function (other) {
    return nanosOf(this, "isGreaterThan") > nanosOf(other, "isGreaterThan");
  }),
  celMethod("isLessThan", DYN, [DYN], BOOL, function (other) {
    return nanosOf(this, "isLessThan") < nanosOf(other, "isLessThan");
  }),
  celMethod("compareTo", DYN, [DYN], INT, function (other) {
    const a = nanosOf(this, "compareTo");
    const b = nanosOf(other, "compareTo");
    return a > b ? 1n : a < b ? -1n : 0n;
  }),
];
