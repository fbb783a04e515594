/**
 * CEL's optional types (cel-go ext optional library, in the Kubernetes base environment from 1.29):
 * `optional.of`, `optional.none`, `optional.ofNonZeroValue`, `hasValue()`, `value()`, `orValue()`,
 * `or()`, and the optional field selection `x.?f` (`OPTIONAL_SELECT`), which the parser here does not
 * know: `compile.ts` rewrites it into calls of that function.
 */
import { CelScalar, celFunc, celMethod, CelFunc, CelInput, isCelList, isCelMap } from "@bufbuild/cel";
import { OPTIONAL, opaqueType, optionalNone, optionalOf, optionalValue } from "../opaque";

const { STRING, BOOL, DYN } = CelScalar;

/** The function `x.?f` and the selections after it become. */
export const OPTIONAL_SELECT = "@optional_select";

function isZero(value: unknown): boolean {
  if (value === null || value === false || value === 0n || value === 0 || value === "") return true;
  if (value instanceof Uint8Array) return value.length === 0;
  if (isCelList(value) || isCelMap(value)) return value.size === 0;
  return false;
}

/** `x.?f`: none when `x` is none or has no field `f`; of the field otherwise. */
function select(target: unknown, field: string): CelInput {
  let value = target;
  if (opaqueType(target) === OPTIONAL) {
    const held = optionalValue(target, "_?._");
    if (!("value" in held)) return target as CelInput;
    value = held.value;
  }
  if (!isCelMap(value)) throw new Error(`no such key: ${field}`);
  return value.has(field as never) ? optionalOf(value.get(field as never)) : optionalNone();
}

export const OPTIONAL_LIBRARY: CelFunc[] = [
  celFunc(OPTIONAL_SELECT, [DYN, STRING], DYN, select),
  celFunc("optional.of", [DYN], DYN, optionalOf),
  celFunc("optional.none", [], DYN, optionalNone),
  celFunc("optional.ofNonZeroValue", [DYN], DYN, (v) => (isZero(v) ? optionalNone() : optionalOf(v))),
  celMethod("hasValue", DYN, [], BOOL, function () {
    return "value" in optionalValue(this, "hasValue");
  }),
  celMethod("value", DYN, [], DYN, function () {
    const held = optionalValue(this, "value");
    if (!("value" in held)) throw new Error("optional.none() dereference");
    return held.value as CelInput;
  }),
  celMethod("orValue", DYN, [DYN], DYN, function (fallback) {
    const held = optionalValue(this, "orValue");
    return "value" in held ? (held.value as CelInput) : fallback;
  }),
  celMethod("or", DYN, [DYN], DYN, function (other) {
    optionalValue(other, "or");
    return "value" in optionalValue(this, "or") ? this : other;
  }),
];
