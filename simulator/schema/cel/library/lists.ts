/**
 * The lists library (k8s.io/apiserver pkg/cel/library/lists.go): `isSorted()`, `sum()`, `min()`,
 * `max()`, `indexOf(x)`, `lastIndexOf(x)` on lists of comparable values, and the sets extension
 * (cel-go ext/sets.go, part of the Kubernetes base environment): `sets.contains`, `sets.equivalent`,
 * `sets.intersects`.
 */
import { CelScalar, celFunc, celMethod, CelFunc, CelInput, CelList, listType } from "@bufbuild/cel";
import { durationOf, wellKnown } from "../values";

const { BOOL, INT, DYN } = CelScalar;
const LIST = listType(DYN);

type Comparable = bigint | number | string | boolean;

const isDuration = (v: unknown) => wellKnown(v)?.$typeName === "google.protobuf.Duration";
const durationNanos = (v: unknown) => {
  const d = wellKnown(v)!;
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
};

/** CEL ordering of two values of one comparable type. */
function compare(a: unknown, b: unknown): number {
  const key = (v: unknown) => (isDuration(v) ? durationNanos(v) : (v as Comparable));
  const x = key(a);
  const y = key(b);
  if (typeof x !== typeof y && !(typeof x !== "string" && typeof y !== "string")) {
    throw new Error("no such overload");
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

function extreme(list: CelList, fn: string, sign: number): CelInput {
  if (list.size === 0) throw new Error(`${fn}(list) argument must not be empty`);
  let best = list.get(0);
  for (const v of list) if (compare(v, best) * sign > 0) best = v;
  return best as CelInput;
}

export function listsLibrary(equals: (a: unknown, b: unknown) => boolean): CelFunc[] {
  return [
    celMethod("isSorted", LIST, [], BOOL, function () {
      const items = [...this];
      return items.every((v, i) => i === 0 || compare(items[i - 1], v) <= 0);
    }),
    celMethod("sum", LIST, [], DYN, function () {
      const items = [...this];
      if (items.length === 0) return 0n;
      if (items.every(isDuration))
        return durationOf(items.reduce((t: bigint, d) => t + durationNanos(d), 0n));
      if (items.every((v) => typeof v === "bigint")) return items.reduce((t: bigint, v) => t + v, 0n);
      return items.reduce((t: number, v) => t + Number(v), 0);
    }),
    celMethod("min", LIST, [], DYN, function () {
      return extreme(this, "min", -1);
    }),
    celMethod("max", LIST, [], DYN, function () {
      return extreme(this, "max", 1);
    }),
    celMethod("indexOf", LIST, [DYN], INT, function (x) {
      const items = [...this];
      return BigInt(items.findIndex((v) => equals(v, x)));
    }),
    celMethod("lastIndexOf", LIST, [DYN], INT, function (x) {
      const items = [...this];
      for (let i = items.length - 1; i >= 0; i--) if (equals(items[i], x)) return BigInt(i);
      return -1n;
    }),
    celFunc("sets.contains", [LIST, LIST], BOOL, (a, b) =>
      [...b].every((x) => [...a].some((y) => equals(x, y))),
    ),
    celFunc(
      "sets.equivalent",
      [LIST, LIST],
      BOOL,
      (a, b) =>
        [...b].every((x) => [...a].some((y) => equals(x, y))) &&
        [...a].every((x) => [...b].some((y) => equals(x, y))),
    ),
    celFunc("sets.intersects", [LIST, LIST], BOOL, (a, b) =>
      [...a].some((x) => [...b].some((y) => equals(x, y))),
    ),
  ];
}
