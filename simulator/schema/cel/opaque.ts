/**
 * Values of the types the Kubernetes CEL libraries add (net.IP, net.CIDR, kubernetes.Quantity,
 * kubernetes.URL, kubernetes.NamedFormat) and of CEL's optional type, which the CEL implementation here
 * does not have: each is a CEL map holding its canonical form, so that CEL equality compares them as
 * their Go types compare, tagged with its type so that only its own functions accept it.
 */
import { celMap, CelMap, isCelMap } from "@bufbuild/cel";

const TYPE = Symbol("k8s-cel-type");
const PAYLOAD = Symbol("k8s-cel-payload");

type Tagged = CelMap & { [TYPE]?: string; [PAYLOAD]?: unknown };

/**
 * A value of type `type` carrying `payload`; `canonical` is what equality compares (none: the value
 * equals every other value of its type without one, as `optional.none()` equals `optional.none()`).
 */
export function opaque(type: string, payload: unknown, canonical?: unknown): CelMap {
  const entries: Array<[string, never]> = canonical === undefined ? [] : [[type, canonical as never]];
  const value = celMap(new Map(entries)) as Tagged;
  value[TYPE] = type;
  value[PAYLOAD] = payload;
  return value;
}

/** The CEL type name of an opaque value, if it is one. */
export function opaqueType(value: unknown): string | undefined {
  return isCelMap(value) ? (value as Tagged)[TYPE] : undefined;
}

/** The payload of a value of `type`; anything else has no overload of the function called. */
export function payload<T>(value: unknown, type: string, fn: string): T {
  if (opaqueType(value) !== type) throw new Error(`no such overload: ${fn}`);
  return (value as Tagged)[PAYLOAD] as T;
}

/** cel-go's optional values (ext optional types): `optional.of(v)` / `optional.none()`. */
export const OPTIONAL = "optional_type";

export function optionalOf(value: unknown): CelMap {
  return opaque(OPTIONAL, { value }, value ?? "null");
}

export function optionalNone(): CelMap {
  return opaque(OPTIONAL, {});
}

/** The value an optional holds, or undefined for none. */
export function optionalValue(value: unknown, fn: string): { value?: unknown } {
  return payload<{ value?: unknown }>(value, OPTIONAL, fn);
}
