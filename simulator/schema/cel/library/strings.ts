/**
 * String functions as Kubernetes runs them: cel-go's strings extension (version 2 in the Kubernetes
 * environment) with `split(sep, n)` as Go's strings.SplitN (n parts at most, the last one the rest),
 * and the standard `contains`, `startsWith`, `endsWith` and RE2 `matches` charging their runtime cost by
 * the length they traverse (cel-go interpreter/runtimecost.go: 0.1 per character, times 0.25 per
 * character of the pattern for a regex).
 */
import { CelScalar, celMethod, CelFunc, listType } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { RE2JS } from "@bufbuild/re2";
import { charge } from "../cost";

const { STRING, BOOL, INT } = CelScalar;

const chargeTraversal = (...lengths: number[]) =>
  charge(BigInt(lengths.reduce((t, n) => t * Math.ceil(n * 0.1), 1)), null);

const patterns = new Map<string, RE2JS>();

function re2(pattern: string): RE2JS {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern);
    patterns.set(pattern, compiled);
  }
  return compiled;
}

/** Go's strings.SplitN. */
function splitN(text: string, separator: string, n: bigint): string[] {
  if (n === 0n) return [];
  const all = separator === "" ? [...text] : text.split(separator);
  if (n < 0n || BigInt(all.length) <= n) return all;
  const head = all.slice(0, Number(n) - 1);
  return [...head, all.slice(head.length).join(separator)];
}

export const STRINGS_LIBRARY: CelFunc[] = [
  ...strings,
  celMethod("split", STRING, [STRING, INT], listType(STRING), function (separator, n) {
    chargeTraversal(this.length);
    return splitN(this, separator, n);
  }),
  celMethod("contains", STRING, [STRING], BOOL, function (part) {
    chargeTraversal(this.length);
    return this.includes(part);
  }),
  celMethod("startsWith", STRING, [STRING], BOOL, function (part) {
    chargeTraversal(part.length);
    return this.startsWith(part);
  }),
  celMethod("endsWith", STRING, [STRING], BOOL, function (part) {
    chargeTraversal(part.length);
    return this.endsWith(part);
  }),
  celMethod("matches", STRING, [STRING], BOOL, function (pattern) {
    charge(BigInt(Math.ceil(this.length * 0.1) * Math.ceil(pattern.length * 0.25)), null);
    return re2(pattern).test(this);
  }),
];
