/**
 * Routing: discovery and OpenAPI documents, and resource paths resolved to a Target and handed to the
 * handler of their verb (CRUD, apply, scale, watch) or to fault control.
 */
import { apply } from "./apply";
import { serveComputed } from "./computed";
import { control, CONTROL_PATH } from "./control";
import { create, get, list, patch, patchType, PATCH_TYPES, remove, removeCollection, update } from "./crud";
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV3GroupVersion,
  openApiV3Root,
  versionInfo,
} from "./discovery";
import { ServerFaults } from "./faults";
import { decode, sendOpenApiV2 } from "./negotiation";
import { apiVersionOf, ResourceRegistry } from "./resources";
import { serveScale } from "./scale";
import { errors } from "./status";
import { Backend, Target } from "./target";
import { dryRunOf, Request, send } from "./transport";
import { Watches } from "./watch";

/** What requests are routed to. */
export interface Routes {
  readonly backend: Backend;
  readonly registry: ResourceRegistry;
  readonly faults: ServerFaults;
  readonly watches: Watches;
  /** host:port clients reach the server at. */
  address(): string;
}

export async function route(routes: Routes, request: Request): Promise<void> {
  const { registry } = routes;
  const method = request.req.method ?? "GET";
  const pathname = rawPath(request).replace(/\/+$/, "") || "/";
  let segments: string[];
  try {
    segments = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    throw errors.badRequest(`malformed path ${JSON.stringify(pathname)}`);
  }
  for (const segment of segments) checkPathSegment(segment);

  if (pathname === CONTROL_PATH) return control(request, method, routes.faults);
  if (method === "GET") {
    switch (pathname) {
      case "/version":
        return send(request, 200, versionInfo());
      case "/healthz":
      case "/readyz":
      case "/livez":
        return send(request, 200, "ok");
      case "/api":
        return send(request, 200, apiVersions(routes.address()));
      case "/apis":
        return send(request, 200, apiGroupList(registry));
      case "/openapi/v3":
        return send(request, 200, openApiV3Root(registry));
      case "/openapi/v2":
        return sendOpenApiV2(request);
    }
    if (segments[0] === "openapi" && segments[1] === "v3") {
      const [group, version] = segments[2] === "api" ? ["", segments[3]] : [segments[3], segments[4]];
      const doc = openApiV3GroupVersion(registry, group ?? "", version ?? "", (r, v) =>
        (r.schemas ?? routes.backend.schemas)?.schemaFor(apiVersionOf(r.group, v), r.kind),
      );
      if (doc) return send(request, 200, doc);
      throw errors.pathNotFound();
    }
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 2) {
    [group, version, rest] = ["", segments[1], segments.slice(2)];
  } else if (segments[0] === "apis" && segments.length >= 3) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else if (segments[0] === "apis" && segments.length === 2 && method === "GET") {
    const doc = apiGroup(registry, segments[1]);
    if (doc) return send(request, 200, doc);
    throw errors.pathNotFound();
  } else {
    throw errors.pathNotFound();
  }
  if (rest.length === 0) {
    const doc = method === "GET" ? apiResourceList(registry, group, version) : undefined;
    if (doc) return send(request, 200, doc);
    throw errors.pathNotFound();
  }
  return dispatch(routes, request, method, resolve(registry, group, version, rest));
}

/**
 * The path as sent. WHATWG URL parsing resolves `..` and `%2e%2e` (so `configmaps/..` would name the
 * namespace); kube-apiserver splits the path as sent (k8s.io/apiserver endpoints/request
 * RequestInfoFactory.NewRequestInfo) and refuses such names.
 */
function rawPath(request: Request): string {
  const target = request.req.url ?? "/";
  if (!target.startsWith("/")) throw errors.badRequest(`malformed path ${JSON.stringify(target)}`);
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

/**
 * As apimachinery's path.IsValidPathSegmentName, which kube-apiserver's handlers apply to names and
 * namespaces (endpoints/handlers/rest.go, scopeNamer): not `.` or `..`, no `/` or `%` once decoded.
 */
function checkPathSegment(segment: string): void {
  const problems =
    segment === "." || segment === ".."
      ? [`may not be '${segment}'`]
      : ["/", "%"].filter((c) => segment.includes(c)).map((c) => `may not contain '${c}'`);
  if (problems.length > 0)
    throw errors.badRequest(`invalid resource name ${JSON.stringify(segment)}: [${problems.join(", ")}]`);
}

function resolve(registry: ResourceRegistry, group: string, version: string, rest: string[]): Target {
  let namespace: string | undefined;
  let parts = rest;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    const inner = registry.byPlural(group, version, parts[2]);
    if (inner?.namespaced) {
      namespace = parts[1];
      parts = parts.slice(2);
    }
  }
  const [plural, name, subresource, ...extra] = parts;
  const resource = registry.byPlural(group, version, plural);
  if (!resource || extra.length > 0) throw errors.pathNotFound();
  if (resource.namespaced && namespace === undefined && name !== undefined) throw errors.pathNotFound();
  if (subresource !== undefined) {
    const known =
      (subresource === "status" && resource.status) || (subresource === "scale" && resource.scale);
    if (!known) throw errors.pathNotFound();
  }
  return { resource, version, namespace, name, subresource };
}

function dispatch(routes: Routes, request: Request, method: string, target: Target): void {
  const { backend } = routes;
  const { name, subresource } = target;
  if (target.resource.readOnly) return serveComputed(backend, request, target, method);
  if (name === undefined) {
    // The all-namespaces path of a namespaced resource only lists and watches.
    if (target.resource.namespaced && target.namespace === undefined && method !== "GET")
      throw errors.methodNotAllowed(method);
    if (method === "GET") {
      const watch = request.query.get("watch");
      if (watch === "true" || watch === "1") return routes.watches.serve(request, target);
      return list(backend, request, target);
    }
    if (method === "POST") return create(backend, request, target);
    if (method === "DELETE" && target.resource.kind !== "Namespace")
      return removeCollection(backend, request, target);
    throw errors.methodNotAllowed(method);
  }
  if (subresource === "scale") return serveScale(backend, request, target, method);
  switch (method) {
    case "GET":
      return get(backend, request, target);
    case "PUT":
      return update(backend, request, target);
    case "PATCH": {
      const type = patchType(request, target);
      const dryRun = dryRunOf(request);
      const body = decode(request);
      if (type === PATCH_TYPES.apply) return apply(backend, request, target, body, dryRun);
      return patch(backend, request, target, type, body, dryRun);
    }
    case "DELETE":
      if (subresource) throw errors.methodNotAllowed(method);
      return remove(backend, request, target);
    default:
      throw errors.methodNotAllowed(method);
  }
}
