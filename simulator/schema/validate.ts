import Ajv, { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { isIP } from "node:net";
import { JSONSchemaProps } from "./crds";
import { childPath } from "./prune";

/**
 * Kubernetes field error kinds (`k8s.io/apimachinery/pkg/util/validation/field`): `reason` goes into
 * `Status.details.causes[].reason`, `label` starts the printed message.
 */
const ERROR_TYPES = {
  invalid: { reason: "FieldValueInvalid", label: "Invalid value" },
  typeInvalid: { reason: "FieldValueTypeInvalid", label: "Invalid value" },
  required: { reason: "FieldValueRequired", label: "Required value" },
  notSupported: { reason: "FieldValueNotSupported", label: "Unsupported value" },
  tooLong: { reason: "FieldValueTooLong", label: "Too long" },
  tooMany: { reason: "FieldValueTooMany", label: "Too many" },
  duplicate: { reason: "FieldValueDuplicate", label: "Duplicate value" },
  forbidden: { reason: "FieldValueForbidden", label: "Forbidden" },
} as const;

export type FieldErrorType = keyof typeof ERROR_TYPES;

/** One validation failure, worded as the API server words it. */
export interface FieldError {
  /** Field path as Kubernetes prints it: `spec.template.spec.taints[0].effect`. */
  field: string;
  /** The message without the field, e.g. `Invalid value: "string": spec.replicas in body must be of type integer: "string"`. */
  message: string;
  /** `Status.details.causes[].reason`, e.g. `FieldValueInvalid`. */
  reason: string;
}

/**
 * A JSON value as Go's `%#v` prints the unstructured value it decodes to: `"a"`, `5`, `true`,
 * `[]interface {}{"a", 5}`, `map[string]interface {}{"k":"v"}` (keys sorted), `interface {}(nil)`.
 */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return "interface {}(nil)";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(", ")}}`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return `map[string]interface {}{${entries.map(([k, v]) => `${JSON.stringify(k)}:${goSyntax(v)}`).join(", ")}}`;
}

/**
 * Formats a bad value as Go's field errors do (field.Error.ErrorBody): a missing value as `"null"`,
 * strings quoted, numbers and booleans bare, lists and maps as `%#v` prints them.
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return goSyntax(value);
}

/** Builds a FieldError; `value` is omitted from the message for the kinds that never print it. */
export function fieldError(type: FieldErrorType, field: string, value: unknown, detail: string): FieldError {
  const { reason, label } = ERROR_TYPES[type];
  let message: string = label;
  if (type !== "required" && type !== "tooLong" && type !== "forbidden") message += `: ${formatValue(value)}`;
  if (detail) message += `: ${detail}`;
  return { field, message, reason };
}

/** The go-openapi name of a JSON value's type, used in "must be of type" messages. */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Go `time.ParseDuration` syntax, which is what `format: duration` means to Kubernetes. */
const GO_DURATION = /^[-+]?(0|(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

function isCidr(value: string): boolean {
  const slash = value.indexOf("/");
  if (slash < 0) return false;
  const family = isIP(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * The string formats Kubernetes checks; any other format (int32, int64, double, ...) is a documentation
 * hint the server does not enforce, so it is left out of the compiled schema.
 */
const STRING_FORMATS: Record<string, true | ((value: string) => boolean)> = {
  "date-time": true,
  date: true,
  hostname: true,
  ipv4: true,
  ipv6: true,
  uuid: true,
  email: true,
  byte: true,
  uri: (value) => {
    try {
      new URL(value, "http://relative.invalid/");
      return true;
    } catch {
      return false;
    }
  },
  ip: (value) => isIP(value) !== 0,
  cidr: isCidr,
  mac: (value) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(value),
  duration: (value) => GO_DURATION.test(value),
};

const COPIED_KEYWORDS = [
  "required",
  "enum",
  "pattern",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf",
  "maxProperties",
  "minProperties",
] as const;

/**
 * Converts a Kubernetes structural schema node to JSON Schema for ajv:
 * - `nullable: true` lets `null` through without checking anything else (as go-openapi does);
 * - `x-kubernetes-int-or-string` means type integer or string; its `anyOf` of bare types is redundant;
 * - OpenAPI 3.0 boolean `exclusiveMaximum/Minimum` become JSON Schema numeric bounds;
 * - `default` is applied by defaulting, not validated here; `x-kubernetes-preserve-unknown-fields` and
 *   `x-kubernetes-embedded-resource` only matter for pruning, which runs before validation;
 * - `x-kubernetes-validations` (CEL rules) are evaluated after it, by `cel/` (as the server does, after
 *   the OpenAPI validation and only when that found nothing blocking);
 * - `x-kubernetes-list-type` set/map uniqueness is checked separately (see `structuralErrors`).
 */
export function toJsonSchema(schema: JSONSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (schema["x-kubernetes-int-or-string"]) out.type = ["integer", "string"];
  else if (schema.type) out.type = schema.type;
  for (const keyword of COPIED_KEYWORDS) {
    if (schema[keyword] !== undefined) out[keyword] = schema[keyword];
  }
  if (schema.maximum !== undefined) {
    out[schema.exclusiveMaximum ? "exclusiveMaximum" : "maximum"] = schema.maximum;
  }
  if (schema.minimum !== undefined) {
    out[schema.exclusiveMinimum ? "exclusiveMinimum" : "minimum"] = schema.minimum;
  }
  if (schema.format && STRING_FORMATS[schema.format]) out.format = schema.format;
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, toJsonSchema(v)]),
    );
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === "object") {
    out.additionalProperties = toJsonSchema(schema.additionalProperties);
  }
  if (schema.items) out.items = toJsonSchema(schema.items);
  for (const keyword of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!branches) continue;
    const typeOnly = branches.every((b) => Object.keys(b).every((k) => k === "type"));
    if (keyword === "anyOf" && schema["x-kubernetes-int-or-string"] && typeOnly) continue;
    out[keyword] = branches.map(toJsonSchema);
  }
  if (schema.not) out.not = toJsonSchema(schema.not);
  if (schema.nullable) return { if: { type: "null" }, then: true, else: out };
  return out;
}

/**
 * CRD patterns are Go RE2 syntax. The differences that occur in practice: a leading `(?i)` flag group,
 * `[]...]` / `[^]...]` with a literal `]` first in a class, `(?P<name>` groups and `\z`. A pattern that still
 * does not compile is not enforced rather than failing the whole schema.
 */
export function goRegExp(source: string, flags: string): { test: (value: string) => boolean } {
  let pattern = source;
  let extra = "";
  const inline = /^\(\?([a-z]+)\)/.exec(pattern);
  if (inline) {
    if (inline[1].includes("i")) extra += "i";
    if (inline[1].includes("s")) extra += "s";
    if (inline[1].includes("m")) extra += "m";
    pattern = pattern.slice(inline[0].length);
  }
  pattern = pattern
    .replace(/\[(\^?)\]/g, "[$1\\]")
    .replace(/\(\?P</g, "(?<")
    .replace(/\\z/g, "$");
  try {
    return new RegExp(pattern, flags + extra);
  } catch {
    return { test: () => true };
  }
}

export function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    allowUnionTypes: true,
    unicodeRegExp: false,
    code: { regExp: goRegExp as never },
  });
  addFormats(ajv, ["date-time", "date", "hostname", "ipv4", "ipv6", "uuid", "email", "byte"]);
  for (const [name, check] of Object.entries(STRING_FORMATS)) {
    if (check !== true) ajv.addFormat(name, { type: "string", validate: check });
  }
  return ajv;
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    value = value != null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** Turns an ajv instance path (`/spec/taints/0/effect`) into a Kubernetes one (`spec.taints[0].effect`). */
function fieldPath(root: unknown, pointer: string): string {
  let value = root;
  let path = "";
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = Array.isArray(value) ? `${path}[${key}]` : childPath(path, key);
    value = value != null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

/** Errors inside anyOf/oneOf branches are summarised by the combinator's own error, as go-openapi does. */
function insideCombinator(error: ErrorObject): boolean {
  return /\/(anyOf|oneOf|not)\/\d*/.test(error.schemaPath.replace(/\/(anyOf|oneOf)$/, ""));
}

/** Keywords go-openapi reports as an invalid value "<field> in body ...", with the rest of its sentence. */
const BODY_INVALID = new Map<string, (params: Record<string, unknown>) => string>([
  ["minLength", (p) => `should be at least ${p.limit} chars long`],
  ["pattern", (p) => `should match '${p.pattern}'`],
  ["maximum", (p) => `should be less than or equal to ${p.limit}`],
  ["exclusiveMaximum", (p) => `should be less than ${p.limit}`],
  ["minimum", (p) => `should be greater than or equal to ${p.limit}`],
  ["exclusiveMinimum", (p) => `should be greater than ${p.limit}`],
  ["minItems", (p) => `should have at least ${p.limit} items`],
  ["uniqueItems", () => "shouldn't contain duplicates"],
  ["multipleOf", (p) => `should be a multiple of ${p.multipleOf}`],
  ["minProperties", (p) => `should have at least ${p.limit} properties`],
  ["anyOf", () => "must validate at least one schema (anyOf)"],
  ["oneOf", () => "must validate one and only one schema (oneOf)"],
  ["not", () => "must not validate the schema (not)"],
]);

/** The keywords whose bad value go-openapi reports as the count, not the value (TooFewItems, TooFewProperties). */
const COUNTED = new Set(["minItems", "minProperties"]);

/**
 * An ajv error as the server words it. `prefix` is the path of the validated value in the object
 * (`status` when a status update is validated against the status schema alone): it prefixes the field,
 * while go-openapi's sentence names the path within the value.
 */
function toFieldError(root: unknown, error: ErrorObject, prefix: string): FieldError | undefined {
  const params = error.params as Record<string, unknown>;
  const raw = valueAt(root, error.instancePath);
  const value =
    COUNTED.has(error.keyword) && raw !== null && typeof raw === "object" ? Object.keys(raw).length : raw;
  const relative = fieldPath(root, error.instancePath);
  const field = prefix
    ? relative
      ? relative.startsWith("[")
        ? prefix + relative
        : `${prefix}.${relative}`
      : prefix
    : relative;
  const name = relative || "body";
  const invalid = BODY_INVALID.get(error.keyword);
  if (invalid) return fieldError("invalid", field, value, `${name} in body ${invalid(params)}`);
  switch (error.keyword) {
    case "if":
      return undefined;
    case "required": {
      const missing = String(params.missingProperty);
      return fieldError("required", childPath(field, missing), undefined, "");
    }
    case "type": {
      const type = Array.isArray(params.type) ? params.type.join(",") : String(params.type);
      const actual = jsonTypeName(value);
      return fieldError("typeInvalid", field, actual, `${name} in body must be of type ${type}: "${actual}"`);
    }
    case "enum": {
      const allowed = (params.allowedValues as unknown[]).map((v) =>
        JSON.stringify(typeof v === "string" ? v : JSON.stringify(v)),
      );
      return fieldError("notSupported", field, value, `supported values: ${allowed.join(", ")}`);
    }
    case "format":
      return fieldError(
        "typeInvalid",
        field,
        value,
        `${name} in body must be of type ${params.format}: ${formatValue(value)}`,
      );
    case "maxLength":
      return fieldError("tooLong", field, value, `may not be more than ${params.limit} bytes`);
    case "maxItems":
      return fieldError(
        "tooMany",
        field,
        (value as unknown[]).length,
        `must have at most ${params.limit} items`,
      );
    case "maxProperties":
      return fieldError(
        "tooMany",
        field,
        Object.keys(value as object).length,
        `must have at most ${params.limit} items`,
      );
    default:
      return fieldError("invalid", field, value, `${name} in body ${error.message ?? "is invalid"}`);
  }
}

/**
 * Runs a compiled schema and reports failures as Kubernetes field errors; those at a JSON pointer
 * `ratcheted` accepts (an update's unchanged values) go to `warnings` instead.
 */
export function schemaErrors(
  validate: ValidateFunction,
  object: unknown,
  ratcheted: (pointer: string) => boolean = () => false,
  warnings: FieldError[] = [],
  prefix = "",
): FieldError[] {
  if (validate(object)) return [];
  const result: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    if (insideCombinator(error)) continue;
    const fe = toFieldError(object, error, prefix);
    if (!fe) continue;
    const key = `${fe.field}\u0000${fe.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    (ratcheted(error.instancePath) ? warnings : result).push(fe);
  }
  return result;
}

/**
 * What the server checks besides the OpenAPI keywords: `x-kubernetes-list-type: set|map` uniqueness,
 * and `apiVersion` and `kind` in `x-kubernetes-embedded-resource` objects.
 */
export function structuralErrors(value: unknown, schema: JSONSchemaProps, at = ""): FieldError[] {
  const errors: FieldError[] = [];
  if (Array.isArray(value)) {
    const type = schema["x-kubernetes-list-type"];
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    if (type === "set" || (type === "map" && keys.length > 0)) {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const identity =
          type === "set"
            ? item
            : Object.fromEntries(keys.map((k) => [k, (item as Record<string, unknown> | null)?.[k] ?? null]));
        const key = JSON.stringify(identity);
        if (seen.has(key)) errors.push(fieldError("duplicate", `${at}[${i}]`, identity, ""));
        seen.add(key);
      });
    }
    if (schema.items)
      value.forEach((item, i) => errors.push(...structuralErrors(item, schema.items!, `${at}[${i}]`)));
    return errors;
  }
  if (value === null || typeof value !== "object") return errors;
  if (schema["x-kubernetes-embedded-resource"] && at !== "") {
    const embedded = value as Record<string, unknown>;
    for (const field of ["apiVersion", "kind"]) {
      if (typeof embedded[field] !== "string" || embedded[field] === "") {
        errors.push(fieldError("required", childPath(at, field), undefined, "must not be empty"));
      }
    }
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (childSchema) errors.push(...structuralErrors(child, childSchema, childPath(at, key)));
  }
  return errors;
}
