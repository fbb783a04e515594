import { isObject } from "../../primitives/objects";
import { JSONSchemaProps } from "./crds";

/** The fields of ObjectMeta; the server decodes `metadata` into that struct and drops anything else. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

const OWNER_REFERENCE_FIELDS = new Set([
  "apiVersion",
  "kind",
  "name",
  "uid",
  "controller",
  "blockOwnerDeletion",
]);
const MANAGED_FIELDS_ENTRY_FIELDS = new Set([
  "manager",
  "operation",
  "apiVersion",
  "time",
  "fieldsType",
  "fieldsV1",
  "subresource",
]);

type Json = Record<string, unknown>;

/** Appends a property to a field path the way Kubernetes prints it (`spec.template.metadata`). */
export function childPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function dropUnknown(object: Json, allowed: ReadonlySet<string>, at: string, pruned: string[]): void {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) {
      delete object[key];
      pruned.push(childPath(at, key));
    }
  }
}

/** Prunes `metadata` to ObjectMeta, as decoding into the Go struct does. */
export function pruneObjectMeta(meta: unknown, at: string, pruned: string[]): void {
  if (!isObject(meta)) return;
  dropUnknown(meta, OBJECT_META_FIELDS, at, pruned);
  const lists: Array<[string, ReadonlySet<string>]> = [
    ["ownerReferences", OWNER_REFERENCE_FIELDS],
    ["managedFields", MANAGED_FIELDS_ENTRY_FIELDS],
  ];
  for (const [field, allowed] of lists) {
    const list = meta[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      if (isObject(entry)) dropUnknown(entry, allowed, `${childPath(at, field)}[${i}]`, pruned);
    });
  }
}

/**
 * Structural pruning as the API server does it for custom resources: fields not specified in the schema
 * are dropped unless `x-kubernetes-preserve-unknown-fields` is set; `apiVersion`, `kind` and `metadata`
 * survive at the root and in `x-kubernetes-embedded-resource` objects, with `metadata` cut to ObjectMeta.
 * Mutates `value` and records the path of every dropped field in `pruned`.
 */
export function pruneValue(
  value: unknown,
  schema: JSONSchemaProps,
  at: string,
  pruned: string[],
  root = false,
): void {
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => pruneValue(item, schema.items!, `${at}[${i}]`, pruned));
    return;
  }
  if (!isObject(value)) return;
  const embedded = root || schema["x-kubernetes-embedded-resource"] === true;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const properties = schema.properties;
  const additional = schema.additionalProperties;
  for (const key of Object.keys(value)) {
    const path = childPath(at, key);
    if (embedded && (key === "apiVersion" || key === "kind")) continue;
    if (embedded && key === "metadata") {
      pruneObjectMeta(value[key], path, pruned);
      continue;
    }
    const propertySchema = properties?.[key];
    if (propertySchema) {
      pruneValue(value[key], propertySchema, path, pruned);
    } else if (isObject(additional)) {
      pruneValue(value[key], additional, path, pruned);
    } else if (!preserve && additional !== true) {
      delete value[key];
      pruned.push(path);
    }
  }
}

/** Removes `null` values of fields that are not `nullable` and have no default, as decoding does. */
export function pruneNulls(value: unknown, schema: JSONSchemaProps): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) pruneNulls(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const propertySchema =
      schema.properties?.[key] ??
      (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (!propertySchema) continue;
    if (value[key] === null) {
      if (!propertySchema.nullable && propertySchema.default === undefined) delete value[key];
    } else {
      pruneNulls(value[key], propertySchema);
    }
  }
}

/**
 * Structural defaulting: a missing (or null, when not nullable) property with a `default` gets a copy of
 * it, recursively into objects, list items and map values.
 */
export function applyDefaults(value: unknown, schema: JSONSchemaProps): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, propertySchema] of Object.entries(schema.properties ?? {})) {
    const missing = !(key in value) || (value[key] === null && !propertySchema.nullable);
    if (missing && propertySchema.default !== undefined) value[key] = structuredClone(propertySchema.default);
    if (key in value) applyDefaults(value[key], propertySchema);
  }
  if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(value)) applyDefaults(value[key], schema.additionalProperties);
  }
}
