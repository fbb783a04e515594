/**
 * Read-only resources whose objects are computed per request, as an aggregated API server serves them:
 * get and list (with label and `metadata.name` field selectors), nothing else. The package server's
 * PackageManifestStorage implements only Getter and Lister (operator-lifecycle-manager
 * pkg/package-server/storage/reststorage.go), so writes and watches answer 405.
 */
import { sendList, sendObject } from "./negotiation";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import { errors } from "./status";
import { apiVersion, Backend, Target } from "./target";
import { Request } from "./transport";

export function serveComputed(backend: Backend, request: Request, target: Target, method: string): void {
  const { resource } = target;
  const watch = request.query.get("watch");
  if (method !== "GET" || watch === "true" || watch === "1" || target.subresource !== undefined)
    throw errors.methodNotAllowed(method);
  const objects = backend.computed?.[`${resource.group}/${resource.plural}`]?.(target.namespace) ?? [];
  if (target.name !== undefined) {
    const object = objects.find((o) => o.metadata.name === target.name);
    if (!object) throw errors.notFound(resource.plural, resource.group, target.name);
    return sendObject(request, resource, 200, object, backend.now());
  }
  const labels = parseLabelSelector(request.query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(request.query.get("fieldSelector") ?? "", resource.kind);
  const items = objects.filter((o) => labels(o.metadata.labels) && fields(o));
  sendList(request, resource, apiVersion(target), items, backend.store.resourceVersion, backend.now());
}
