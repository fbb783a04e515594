/** The scale subresource (autoscaling/v1 Scale) of kinds whose CRD or built-in declares one. */
import { fieldError } from "../schema";
import { KubeObject } from "../store";
import { invalid } from "./admission";
import { applyPatch, commit, PATCH_TYPES, patchType } from "./crud";
import { evaluateJsonPath, setJsonPath } from "./jsonpath";
import { decode, decodeObject } from "./negotiation";
import { errors } from "./status";
import { isObject } from "../../primitives/objects";
import { Backend, checkResourceVersion, Json, mustGet, Target } from "./target";
import { dryRunOf, Request, send } from "./transport";

/** Serves GET, PUT and PATCH on `<object>/scale`. */
export function serveScale(backend: Backend, request: Request, target: Target, method: string): void {
  if (method === "GET") return send(request, 200, scaleOf(target, mustGet(backend.store, target)));
  if (method === "PUT") return updateScale(backend, request, target, decodeObject(request));
  if (method === "PATCH") return patchScale(backend, request, target);
  throw errors.methodNotAllowed(method);
}

function scaleOf(target: Target, object: KubeObject): Json {
  const scale = target.resource.scale!;
  const first = (p?: string) => (p ? evaluateJsonPath(object, p)[0] : undefined);
  const selector = first(scale.labelSelectorPath);
  const status: Json = { replicas: first(scale.statusReplicasPath) ?? 0 };
  if (typeof selector === "string" && selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
      creationTimestamp: object.metadata.creationTimestamp,
    },
    spec: { replicas: first(scale.specReplicasPath) ?? 0 },
    status,
  };
}

function updateScale(backend: Backend, request: Request, target: Target, scale: Json): void {
  const dryRun = dryRunOf(request);
  const existing = mustGet(backend.store, target);
  const spec = isObject(scale.spec) ? scale.spec : {};
  const replicas = spec.replicas;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    const fe =
      typeof replicas === "number" && Number.isInteger(replicas)
        ? fieldError("invalid", "spec.replicas", replicas, "must be greater than or equal to 0")
        : fieldError(
            "typeInvalid",
            "spec.replicas",
            replicas ?? null,
            "spec.replicas in body must be of type integer",
          );
    invalid("Scale", "autoscaling", existing.metadata.name, [fe]);
  }
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  checkResourceVersion(target, existing, meta.resourceVersion);
  const updated = structuredClone(existing);
  setJsonPath(updated, target.resource.scale!.specReplicasPath, replicas);
  const mainTarget = { ...target, subresource: undefined };
  const stored = commit(backend, request, mainTarget, existing, updated, dryRun, {
    scope: "main",
    subresource: "scale",
  });
  send(request, 200, scaleOf(target, stored));
}

function patchScale(backend: Backend, request: Request, target: Target): void {
  const type = patchType(request, target);
  if (type === PATCH_TYPES.apply)
    throw errors.unsupportedMediaType(type, [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.strategic]);
  const current = scaleOf(target, mustGet(backend.store, target));
  updateScale(backend, request, target, applyPatch(type, current, decode(request)));
}
