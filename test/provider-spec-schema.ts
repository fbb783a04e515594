import * as fs from "node:fs";
import { PROVIDER_SPECS } from "./reference";

/**
 * Checks a rendered provider spec against openshift/api's own OpenAPI definitions in
 * machine-provider-specs.openapi.json beside the CRDs (tests using it call
 * `requireReference(this, PROVIDER_SPECS)` first): types, enums, required fields, and every field
 * the definitions do not declare counted as an error (the machine-api's strict decoding would drop it).
 */
interface Schema {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  format?: string;
}

const PREFIX = "com.github.openshift.api.machine.v1beta1.";
let definitions: Record<string, Schema> | undefined;

function resolve(schema: Schema): Schema {
  const defs = (definitions ??= JSON.parse(fs.readFileSync(PROVIDER_SPECS.dir, "utf8")).definitions as Record<
    string,
    Schema
  >);
  let s = schema;
  while (s.$ref || (s.allOf && s.allOf.length === 1 && !s.properties)) {
    s = s.$ref
      ? { ...s, $ref: undefined, ...defs[s.$ref.replace("#/definitions/", "")] }
      : { ...s.allOf![0] };
  }
  return s;
}

function check(value: unknown, schema: Schema, at: string, errors: string[]): void {
  const s = resolve(schema);
  if (s.enum && !s.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  // Quantities and int-or-strings carry no type.
  if (!s.type && !s.properties) return;
  const type = s.type ?? "object";
  const actual = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const ok =
    type === "integer" ? Number.isInteger(value) : type === "number" ? actual === "number" : actual === type;
  if (!ok) {
    errors.push(`${at}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === "array") {
    (value as unknown[]).forEach((v, i) => check(v, s.items ?? {}, `${at}[${i}]`, errors));
  } else if (type === "object") {
    const object = value as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in object)) errors.push(`${at}.${r}: required`);
    for (const [k, v] of Object.entries(object)) {
      const child =
        s.properties?.[k] ??
        (typeof s.additionalProperties === "object" ? s.additionalProperties : undefined);
      if (!child) errors.push(`${at}.${k}: unknown field`);
      else check(v, child, `${at}.${k}`, errors);
    }
  }
}

/** The violations of a provider spec (AWSMachineProviderConfig or AzureMachineProviderSpec), empty when valid. */
export function providerSpecErrors(spec: { kind: string }): string[] {
  const errors: string[] = [];
  check(spec, { $ref: `#/definitions/${PREFIX}${spec.kind}` }, spec.kind, errors);
  return errors;
}
