/**
 * The verbs on whole objects: get, list, create, update, merge/JSON/strategic patch, delete and
 * deletecollection, each admitted, tracked in managedFields and stored (or only checked, for dryRun).
 */
import { randomUUID } from "node:crypto";
import { fieldError } from "../schema";
import { KubeObject } from "../store";
import { kubeTimestamp, PropagationPolicy } from "../store/memory-store";
import { isCrd, prepareCrdDelete, refuseTerminating } from "./apiextensions";
import { admit, checkNamespace, invalid, normalize, prepareCreate } from "./admission";
import { admitMachineApi } from "./machine-webhooks";
import { Scope, trackUpdate } from "./managed-fields";
import { decode, decodeObject, patchContentType, sendList, sendObject } from "./negotiation";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import { ApiError, errors } from "./status";
import { isObject, jsonEqual } from "../../primitives/objects";
import {
  apiVersion,
  Backend,
  checkResourceVersion,
  keyOf,
  listTypes,
  mustGet,
  scopeOf,
  storeError,
  Target,
} from "./target";
import { dryRunOf, fieldManagerOf, Request, send } from "./transport";

export const PATCH_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export function get(backend: Backend, request: Request, target: Target): void {
  sendObject(request, target.resource, 200, mustGet(backend.store, target), backend.now());
}

function selected(backend: Backend, request: Request, target: Target): KubeObject[] {
  const labels = parseLabelSelector(request.query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(request.query.get("fieldSelector") ?? "", target.resource.kind);
  return backend.store.list(apiVersion(target), target.resource.kind, {
    namespace: target.namespace,
    where: (o) => labels(o.metadata.labels) && fields(o),
  });
}

export function list(backend: Backend, request: Request, target: Target): void {
  const items = selected(backend, request, target);
  sendList(request, target.resource, apiVersion(target), items, backend.store.resourceVersion, backend.now());
}

export function create(backend: Backend, request: Request, target: Target): void {
  refuseTerminating(target);
  const dryRun = dryRunOf(request);
  // The handler checks the options before it decodes the body.
  const manager = fieldManagerOf(request);
  const object = normalize(target, decodeObject(request), true);
  delete object.metadata.managedFields;
  prepareCreate(target, object);
  const admitted = admit(backend.schemas, request, target, object);
  checkNamespace(backend.store, target, admitted.metadata.name);
  admitMachineApi(backend.store, target, admitted, undefined);
  trackUpdate(undefined, admitted, {
    manager,
    types: listTypes(backend, target),
    scope: scopeOf(target),
    now: backend.now(),
  });
  if (backend.store.get(keyOf(target, admitted.metadata.name))) {
    throw errors.alreadyExists(target.resource.plural, target.resource.group, admitted.metadata.name);
  }
  storeNew(backend, request, target, admitted, dryRun);
}

/** Stores an admitted new object (or only pretends to, for dryRun) and answers 201 with it. */
export function storeNew(
  backend: Backend,
  request: Request,
  target: Target,
  admitted: KubeObject,
  dryRun: boolean,
): void {
  let created: KubeObject;
  if (dryRun) {
    created = structuredClone(admitted);
    created.metadata.uid = randomUUID();
    created.metadata.generation = 1;
    created.metadata.creationTimestamp = kubeTimestamp(backend.now());
    delete created.metadata.resourceVersion;
  } else {
    try {
      created = backend.store.create(admitted);
    } catch (error) {
      storeError(target, error, admitted.metadata.name);
    }
  }
  sendObject(request, target.resource, 201, created, backend.now());
}

/** Stores a write to an existing object (or only checks it, for dryRun). */
export function commit(
  backend: Backend,
  request: Request,
  target: Target,
  existing: KubeObject,
  candidate: KubeObject,
  dryRun: boolean,
  track?: { subresource?: string; scope: Scope },
): KubeObject {
  const status = target.subresource === "status";
  // What the store would keep, so admission validates the complete object.
  const merged: KubeObject = status
    ? { ...structuredClone(existing), status: candidate.status, metadata: candidate.metadata }
    : {
        ...candidate,
        ...(target.resource.status && existing.status !== undefined ? { status: existing.status } : {}),
      };
  if (target.resource.status && !status && existing.status === undefined) delete merged.status;
  const admitted = admit(backend.schemas, request, target, merged, existing);
  admitMachineApi(backend.store, target, admitted, existing);
  if (track) {
    // Ownership is computed on the admitted object, so pruned fields are never owned. A write that
    // sets managedFields itself starts from those, as the API server's field manager decodes the
    // request's entries before tracking (pulumi-kubernetes moves its create's fields this way).
    const requested = candidate.metadata.managedFields;
    const base =
      requested !== undefined && !jsonEqual(requested, existing.metadata.managedFields)
        ? { ...existing, metadata: { ...existing.metadata, managedFields: requested } }
        : existing;
    trackUpdate(base, admitted, {
      manager: fieldManagerOf(request),
      types: listTypes(backend, target),
      scope: track.scope,
      subresource: track.subresource,
      now: backend.now(),
    });
  }
  if (dryRun) return admitted;
  try {
    return backend.store.update(admitted, { subresource: status ? "status" : undefined });
  } catch (error) {
    storeError(target, error, existing.metadata.name);
  }
}

/** Commits a replacement of the target's object and answers with what was stored. */
function commitAndAnswer(
  backend: Backend,
  request: Request,
  target: Target,
  existing: KubeObject,
  object: KubeObject,
  dryRun: boolean,
): void {
  const track = { scope: scopeOf(target), subresource: target.subresource };
  const stored = commit(backend, request, target, existing, object, dryRun, track);
  sendObject(request, target.resource, 200, stored, backend.now());
}

export function update(backend: Backend, request: Request, target: Target): void {
  const dryRun = dryRunOf(request);
  const object = normalize(target, decodeObject(request), false);
  const existing = mustGet(backend.store, target);
  if (!target.resource.builtin && !object.metadata.resourceVersion) {
    const fe = fieldError("invalid", "metadata.resourceVersion", "0x0", "must be specified for an update");
    invalid(target.resource.kind, target.resource.group, existing.metadata.name, [fe]);
  }
  checkResourceVersion(target, existing, object.metadata.resourceVersion);
  object.metadata.managedFields = existing.metadata.managedFields;
  commitAndAnswer(backend, request, target, existing, object, dryRun);
}

/** The patch type of a PATCH request, refused with 415 when the target does not take it. */
export function patchType(request: Request, target: Target): string {
  const contentType = patchContentType(request);
  const accepted = [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.apply];
  if (target.resource.builtin || target.subresource === "scale") accepted.push(PATCH_TYPES.strategic);
  if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
  return contentType;
}

/** Applies a non-apply patch to a JSON value; the result must be an object. */
export function applyPatch(type: string, current: unknown, patch: unknown): Record<string, unknown> {
  let patched: unknown;
  try {
    if (type === PATCH_TYPES.json) patched = jsonPatch(current, patch);
    else if (!isObject(patch)) throw new PatchError(400, "the patch must be a JSON object");
    else if (type === PATCH_TYPES.merge) patched = mergePatch(current, patch);
    else patched = strategicMergePatch(current, patch);
  } catch (error) {
    if (error instanceof PatchError) {
      throw error.code === 400
        ? errors.badRequest(error.message)
        : new ApiError(422, "Invalid", error.message);
    }
    throw error;
  }
  if (!isObject(patched)) throw errors.badRequest("the patch produced something that is not an object");
  return patched;
}

/** A merge, JSON or strategic merge patch of the target's object. */
export function patch(
  backend: Backend,
  request: Request,
  target: Target,
  type: string,
  body: unknown,
  dryRun: boolean,
): void {
  const existing = mustGet(backend.store, target);
  const object = normalize(target, applyPatch(type, existing, body), false);
  commitAndAnswer(backend, request, target, existing, object, dryRun);
}

interface DeleteOptions {
  policy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

function deleteOptions(request: Request): DeleteOptions {
  let body: Record<string, unknown> = {};
  if (request.body && request.body.length > 0) {
    const decoded = decode(request);
    if (!isObject(decoded)) throw errors.badRequest("DeleteOptions must be a JSON object");
    body = decoded;
  }
  const policy = (body.propagationPolicy ?? request.query.get("propagationPolicy") ?? undefined) as
    string | undefined;
  if (policy !== undefined && !["Background", "Foreground", "Orphan"].includes(policy)) {
    throw errors.badRequest(
      `propagationPolicy: Unsupported value: "${policy}": supported values: "Background", "Foreground", "Orphan"`,
    );
  }
  const orphan = body.orphanDependents ?? request.query.get("orphanDependents");
  const pre = isObject(body.preconditions) ? body.preconditions : {};
  const dryRunValues = [
    ...request.query.getAll("dryRun"),
    ...(Array.isArray(body.dryRun) ? body.dryRun : []),
  ];
  for (const v of dryRunValues)
    if (v !== "All") throw errors.badRequest(`unsupported dryRun value "${String(v)}"`);
  return {
    policy: (policy ?? (orphan === true || orphan === "true" ? "Orphan" : undefined)) as
      PropagationPolicy | undefined,
    preconditions: {
      uid: typeof pre.uid === "string" ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === "string" ? pre.resourceVersion : undefined,
    },
    dryRun: dryRunValues.length > 0,
  };
}

function deleteOne(
  backend: Backend,
  target: Target,
  existing: KubeObject,
  options: DeleteOptions,
): KubeObject | undefined {
  const key = keyOf(target, existing.metadata.name);
  if (options.dryRun) return existing;
  if (isCrd(target)) prepareCrdDelete(backend.store, existing.metadata.name, backend.now());
  try {
    backend.store.delete(key, { propagationPolicy: options.policy, preconditions: options.preconditions });
  } catch (error) {
    storeError(target, error, existing.metadata.name);
  }
  return backend.store.get(key);
}

/** Deletes the target's object: the object while finalizers hold it, then a Status (built-ins) or the object. */
export function remove(backend: Backend, request: Request, target: Target): void {
  const options = deleteOptions(request);
  const existing = mustGet(backend.store, target);
  const remaining = deleteOne(backend, target, existing, options);
  if (remaining) return send(request, 200, remaining);
  if (!target.resource.builtin) return send(request, 200, existing);
  send(request, 200, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: {
      name: existing.metadata.name,
      group: target.resource.group,
      kind: target.resource.plural,
      uid: existing.metadata.uid,
    },
  });
}

export function removeCollection(backend: Backend, request: Request, target: Target): void {
  const options = deleteOptions(request);
  const items = selected(backend, request, target);
  for (const item of items)
    deleteOne(backend, { ...target, namespace: item.metadata.namespace }, item, options);
  send(request, 200, {
    kind: target.resource.listKind,
    apiVersion: apiVersion(target),
    metadata: { resourceVersion: backend.store.resourceVersion },
    items,
  });
}
