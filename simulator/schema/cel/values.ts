/**
 * Custom resource values as CEL sees them (k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/model,
 * SchemaDeclType; pkg/apiserver/schema/cel/values.go, UnstructuredToVal): integers are CEL ints, numbers
 * doubles, strings of format byte, duration and date/date-time are bytes, durations and timestamps, and
 * the object at a resource's root (or an embedded resource) shows only `apiVersion`, `kind` and
 * `metadata.name`/`metadata.generateName` of its metadata. Lists of `x-kubernetes-list-type` set and map
 * compare without regard to order and concatenate as sets and maps (unstructuredSetList,
 * unstructuredMapList).
 */
import { celList, celMap, CelInput, CelList, isCelList, isCelMap, isCelType, isCelUint } from "@bufbuild/cel";
import { create } from "@bufbuild/protobuf";
import { DurationSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { JSONSchemaProps } from "../crds";

/** How a list of a custom resource compares and concatenates. */
interface ListSemantics {
  type: "set" | "map";
  keys: readonly string[];
}

const semantics = new WeakMap<object, ListSemantics>();

/** Go `time.ParseDuration` units, in nanoseconds. */
const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Nanoseconds of a Go duration string, or undefined when it is not one. */
export function parseGoDuration(text: string): bigint | undefined {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!match) return text === "0" ? 0n : undefined;
  let total = 0n;
  for (const [, digits, fraction = "", unit] of text.matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/g)) {
    const scale = UNIT_NANOS[unit];
    total += BigInt(digits || "0") * scale;
    if (fraction) total += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
  }
  return match[1] === "-" ? -total : total;
}

/** A CEL duration of `nanos` nanoseconds. */
export function durationOf(nanos: bigint) {
  const seconds = nanos / 1_000_000_000n;
  return create(DurationSchema, { seconds, nanos: Number(nanos - seconds * 1_000_000_000n) });
}

function scalarToCel(value: string | number | boolean, schema: JSONSchemaProps | undefined): CelInput {
  if (typeof value === "number") {
    const integral = Number.isInteger(value);
    if (schema?.type === "number") return value;
    return integral ? BigInt(value) : value;
  }
  if (typeof value !== "string" || schema?.type !== "string") return value;
  switch (schema.format) {
    case "byte":
      return new Uint8Array(Buffer.from(value, "base64"));
    case "duration": {
      const nanos = parseGoDuration(value);
      return nanos === undefined ? value : durationOf(nanos);
    }
    case "date":
    case "date-time": {
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? value : timestampFromDate(date);
    }
    default:
      return value;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The CEL value of a JSON value under its schema (undefined where the schema is unknown: the value
 * then converts as JSON decodes into Go, integral numbers as ints). `resourceRoot` marks the root of the
 * resource or of an `x-kubernetes-embedded-resource`, whose metadata CEL sees only in part
 * (model.WithTypeAndObjectMeta).
 */
export function toCelValue(
  value: unknown,
  schema: JSONSchemaProps | undefined,
  resourceRoot = false,
): CelInput {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const items = schema?.items;
    const list = celList(
      value.map((item) => toCelValue(item, items, items?.["x-kubernetes-embedded-resource"])),
    );
    const type = schema?.["x-kubernetes-list-type"];
    if (type === "set" || type === "map") {
      semantics.set(list, { type, keys: schema?.["x-kubernetes-list-map-keys"] ?? [] });
    }
    return list;
  }
  if (!isRecord(value)) return scalarToCel(value as string | number | boolean, schema);
  const entries: Array<[string, CelInput]> = [];
  const additional = isRecord(schema?.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const [key, child] of Object.entries(value)) {
    if (resourceRoot && key === "metadata" && isRecord(child)) {
      const meta = Object.entries(child).filter(([k]) => k === "name" || k === "generateName") as Array<
        [string, CelInput]
      >;
      entries.push([key, celMap(new Map(meta))]);
      continue;
    }
    const childSchema = schema?.properties?.[key] ?? additional;
    entries.push([key, toCelValue(child, childSchema, childSchema?.["x-kubernetes-embedded-resource"])]);
  }
  return celMap(new Map(entries));
}

/** The identity of a map list's item: its key fields. */
function mapListKey(item: unknown, keys: readonly string[]): string {
  if (!isCelMap(item)) return "";
  return JSON.stringify(keys.map((k) => String(item.get(k) ?? null)));
}

/** CEL equality of scalars: numbers across int, uint and double, bytes by content, durations and timestamps by value. */
export function scalarEquals(left: unknown, right: unknown): boolean {
  const numeric = (v: unknown) =>
    typeof v === "bigint" || typeof v === "number" ? v : isCelUint(v) ? v.value : undefined;
  const l = numeric(left);
  const r = numeric(right);
  if (l !== undefined && r !== undefined) {
    if (typeof l === typeof r) return l === r;
    const [big, double] = typeof l === "bigint" ? [l, r as number] : [r as bigint, l as number];
    return Number.isInteger(double) && BigInt(double) === big;
  }
  if (left instanceof Uint8Array && right instanceof Uint8Array) {
    return left.length === right.length && left.every((b, i) => b === right[i]);
  }
  const l2 = wellKnown(left);
  const r2 = wellKnown(right);
  if (l2 && r2) return l2.$typeName === r2.$typeName && l2.seconds === r2.seconds && l2.nanos === r2.nanos;
  if (isCelType(left) && isCelType(right)) return left.kind === right.kind && left.name === right.name;
  return left === right;
}

/** A duration or timestamp, as given (a message) or as CEL hands it to functions (its reflection). */
export function wellKnown(v: unknown): { $typeName: string; seconds: bigint; nanos: number } | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const message = "message" in v && "desc" in v ? (v as { message: unknown }).message : v;
  const typed = message as { $typeName?: string; seconds: bigint; nanos: number };
  return typed.$typeName === "google.protobuf.Duration" || typed.$typeName === "google.protobuf.Timestamp"
    ? (typed as { $typeName: string; seconds: bigint; nanos: number })
    : undefined;
}

/**
 * CEL equality as Kubernetes defines it for custom resources: set lists equal when they hold the same
 * elements in any order, map lists when their items agree key by key (values.go, unstructuredSetList
 * and unstructuredMapList Equal); otherwise CEL's own equality, element by element.
 */
export function k8sEquals(left: unknown, right: unknown): boolean {
  if (isCelList(left) && isCelList(right)) {
    if (left.size !== right.size) return false;
    const kind = semantics.get(left as object) ?? semantics.get(right as object);
    if (kind?.type === "set") {
      return [...left].every((l) => [...right].some((r) => k8sEquals(l, r)));
    }
    if (kind?.type === "map") {
      const byKey = new Map([...right].map((r) => [mapListKey(r, kind.keys), r]));
      return [...left].every((l) => {
        const r = byKey.get(mapListKey(l, kind.keys));
        return r !== undefined && k8sEquals(l, r);
      });
    }
    for (let i = 0; i < left.size; i++) if (!k8sEquals(left.get(i), right.get(i))) return false;
    return true;
  }
  if (isCelMap(left) && isCelMap(right)) {
    if (left.size !== right.size) return false;
    for (const [k, v] of left) {
      if (!right.has(k as never)) return false;
      if (!k8sEquals(v, right.get(k as never))) return false;
    }
    return true;
  }
  return scalarEquals(left, right);
}

/**
 * `+` of two lists: a set list keeps its elements and adds those of the right not in it; a map list
 * replaces the items whose keys the right has, in place, and appends the others (values.go, Add).
 */
export function k8sConcat(left: CelList, right: CelList): CelList {
  const kind = semantics.get(left as object);
  const l = [...left];
  const r = [...right];
  let items: unknown[];
  if (kind?.type === "set") {
    items = [...l, ...r.filter((x) => !l.some((y) => k8sEquals(x, y)))];
  } else if (kind?.type === "map") {
    const rightByKey = new Map(r.map((x) => [mapListKey(x, kind.keys), x]));
    const leftKeys = new Set(l.map((x) => mapListKey(x, kind.keys)));
    items = [
      ...l.map((x) => rightByKey.get(mapListKey(x, kind.keys)) ?? x),
      ...r.filter((x) => !leftKeys.has(mapListKey(x, kind.keys))),
    ];
  } else {
    items = [...l, ...r];
  }
  const result = celList(items as never[]);
  if (kind) semantics.set(result, kind);
  return result;
}
