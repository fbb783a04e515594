/**
 * Server-side apply (`application/apply-patch+yaml`): the applied configuration is pruned, merged by
 * field ownership (managedFields), and created when the object does not exist yet. Conflicts with other
 * managers answer 409 unless `force=true`.
 */
import { KubeObject } from "../store";
import { admit, checkNamespace, normalize, prepareCreate, pruneUnknown } from "./admission";
import { admitMachineApi } from "./machine-webhooks";
import { commit, storeNew } from "./crud";
import { ApplyConflictError, serverSideApply } from "./managed-fields";
import { sendObject } from "./negotiation";
import { ApiError, errors } from "./status";
import { isObject } from "../../primitives/objects";
import { Backend, checkResourceVersion, keyOf, listTypes, scopeOf, Target } from "./target";
import { checkFieldManager, Request } from "./transport";

export function apply(
  backend: Backend,
  request: Request,
  target: Target,
  body: unknown,
  dryRun: boolean,
): void {
  if (!isObject(body))
    throw errors.badRequest("error decoding YAML: the applied configuration must be an object");
  const manager = request.query.get("fieldManager");
  if (!manager)
    throw errors.badRequest("PATCH, application/apply-patch+yaml requires fieldManager parameter");
  checkFieldManager(request, manager);
  const force = request.query.get("force") === "true";
  const applied = pruneUnknown(backend.schemas, request, target, normalize(target, body, false));
  if (!applied.metadata.name) applied.metadata.name = target.name ?? "";
  const existing = backend.store.get(keyOf(target));
  const options = {
    manager,
    force,
    types: listTypes(backend, target),
    scope: scopeOf(target),
    subresource: target.subresource,
    now: backend.now(),
  };
  let result: KubeObject;
  try {
    result = serverSideApply(existing, applied, options);
  } catch (error) {
    if (error instanceof ApplyConflictError) {
      throw new ApiError(409, "Conflict", error.message, {
        name: applied.metadata.name,
        group: target.resource.group,
        kind: target.resource.plural,
        causes: error.conflicts.map((c) => ({
          reason: "FieldManagerConflict",
          message: `conflict with ${c.manager}`,
          field: c.field,
        })),
      });
    }
    throw error;
  }
  if (!existing) {
    if (target.subresource)
      throw errors.notFound(target.resource.plural, target.resource.group, target.name ?? "");
    const object = prepareCreate(target, normalize(target, result, true));
    const admitted = admit(backend.schemas, request, target, object);
    checkNamespace(backend.store, target, admitted.metadata.name);
    admitMachineApi(backend.store, target, admitted, undefined);
    return storeNew(backend, request, target, admitted, dryRun);
  }
  checkResourceVersion(target, existing, applied.metadata.resourceVersion);
  result.metadata.resourceVersion = existing.metadata.resourceVersion;
  const stored = commit(backend, request, target, existing, result, dryRun);
  sendObject(request, target.resource, 200, stored, backend.now());
}
