/**
 * The regex library (k8s.io/apiserver pkg/cel/library/regex.go): `s.find(re)` (the first match, or "")
 * and `s.findAll(re[, limit])`. Patterns are RE2, checked with an RE2 engine; matches are found with the
 * JavaScript translation the schema patterns use, which agrees with RE2 for the patterns CRDs hold.
 */
import { CelScalar, celMethod, CelFunc, listType } from "@bufbuild/cel";
import { RE2JS } from "@bufbuild/re2";
import { goRegExp } from "../../validate";

const { STRING, INT } = CelScalar;

function globalRegExp(pattern: string): RegExp {
  RE2JS.compile(pattern);
  const translated = goRegExp(pattern, "g");
  if (!(translated instanceof RegExp)) throw new Error(`error parsing regexp: ${pattern}`);
  return translated;
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const found = [...text.matchAll(globalRegExp(pattern))].map((m) => m[0]);
  return limit < 0n ? found : found.slice(0, Number(limit));
}

export const REGEX_LIBRARY: CelFunc[] = [
  celMethod("find", STRING, [STRING], STRING, function (pattern) {
    return findAll(this, pattern, 1n)[0] ?? "";
  }),
  celMethod("findAll", STRING, [STRING], listType(STRING), function (pattern) {
    return findAll(this, pattern, -1n);
  }),
  celMethod("findAll", STRING, [STRING, INT], listType(STRING), function (pattern, limit) {
    return findAll(this, pattern, limit);
  }),
];
