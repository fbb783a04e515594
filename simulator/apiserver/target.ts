/**
 * What a resource request addresses, and what every handler of one shares: the store, the CRD schemas,
 * the clock, and the mapping of store failures to API errors.
 */
import { CrdSchemas } from "../schema";
import { KubeObject, ObjectKey, StoreError } from "../store";
import { MemoryStore } from "../store/memory-store";
import { builtinListTypes, ListTypes, schemaListTypes, Scope } from "./managed-fields";
import { apiVersionOf, ResourceType } from "./resources";
import { errors } from "./status";

export type Json = Record<string, unknown>;

/** A resource path resolved: `/apis/<group>/<version>[/namespaces/<ns>]/<plural>[/<name>[/<subresource>]]`. */
export interface Target {
  resource: ResourceType;
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/**
 * The objects of a read-only resource in a namespace (all namespaces when undefined), computed on each
 * request as an aggregated API server computes them.
 */
export type ComputedObjects = (namespace: string | undefined) => KubeObject[];

/** What resource handlers read and write. */
export interface Backend {
  readonly store: MemoryStore;
  /** CRDs that validate and prune custom resources. */
  readonly schemas?: CrdSchemas;
  /** Source of "now" for ages in tables and managedFields times. */
  now(): Date;
  /** The objects of read-only resources, by `<group>/<plural>`. */
  readonly computed?: Readonly<Record<string, ComputedObjects>>;
}

export function apiVersion(target: Target): string {
  return apiVersionOf(target.resource.group, target.version);
}

export function keyOf(target: Target, name = target.name ?? ""): ObjectKey {
  return { apiVersion: apiVersion(target), kind: target.resource.kind, namespace: target.namespace, name };
}

/** The object the target names, or 404. */
export function mustGet(store: MemoryStore, target: Target): KubeObject {
  const object = store.get(keyOf(target));
  if (!object) throw errors.notFound(target.resource.plural, target.resource.group, target.name ?? "");
  return object;
}

/** Rethrows a store failure as the API error the real server answers with. */
export function storeError(target: Target, error: unknown, name: string): never {
  if (error instanceof StoreError) {
    const { plural, group, kind } = target.resource;
    if (error.reason === "NotFound") throw errors.notFound(plural, group, name);
    if (error.reason === "AlreadyExists") throw errors.alreadyExists(plural, group, name);
    if (error.reason === "Conflict") {
      const detail = error.message.startsWith("Precondition")
        ? error.message
        : "the object has been modified; please apply your changes to the latest version and try again";
      throw errors.conflict(plural, group, name, detail);
    }
    throw errors.invalid(kind, group, name, error.message, []);
  }
  throw error;
}

/** 409 unless `resourceVersion` is absent or the stored one. */
export function checkResourceVersion(target: Target, existing: KubeObject, resourceVersion: unknown): void {
  if (
    typeof resourceVersion === "string" &&
    resourceVersion &&
    resourceVersion !== existing.metadata.resourceVersion
  )
    storeError(target, new StoreError(409, "Conflict", "stale"), existing.metadata.name);
}

/** How lists merge for managedFields: built-in strategies, or the CRD schema's list types. */
export function listTypes(backend: Backend, target: Target): ListTypes {
  return listTypesOf(target.resource, apiVersion(target), backend.schemas);
}

/** How lists of a resource merge: built-in strategies, or its CRD schema's list types. */
export function listTypesOf(resource: ResourceType, version: string, schemas?: CrdSchemas): ListTypes {
  if (resource.builtin) return builtinListTypes;
  return schemaListTypes((resource.schemas ?? schemas)?.schemaFor(version, resource.kind));
}

/** Which part of the object a write through this target may own. */
export function scopeOf(target: Target): Scope {
  if (target.subresource === "status") return "status";
  return target.resource.status ? "main" : "all";
}
