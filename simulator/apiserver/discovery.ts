import { apiVersionOf, ResourceRegistry, ResourceType } from "./resources";

/** The Kubernetes release the simulator answers as (OpenShift 4.19 ships 1.32). */
export const KUBERNETES_VERSION = { major: "1", minor: "32", gitVersion: "v1.32.5" };

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const SUBRESOURCE_VERBS = ["get", "patch", "update"];
const READ_ONLY_VERBS = ["get", "list"];
/** A terminating CRD's kind (customresource_discovery_controller.go, sync). */
const TERMINATING_VERBS = ["delete", "deletecollection", "get", "list", "watch"];

export function versionInfo(): Record<string, string> {
  return {
    ...KUBERNETES_VERSION,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: "go1.23.0",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupEntry(registry: ResourceRegistry, group: string): unknown {
  const versions: string[] = [];
  for (const r of registry.all.filter((x) => x.group === group)) {
    for (const v of r.versions) if (!versions.includes(v)) versions.push(v);
  }
  // The preferred version is the first served by the group's first resource (its storage version).
  const preferred = registry.all.find((r) => r.group === group)!.versions[0];
  const ordered = [preferred, ...versions.filter((v) => v !== preferred)];
  return {
    name: group,
    versions: ordered.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${group}/${preferred}`, version: preferred },
  };
}

export function apiGroupList(registry: ResourceRegistry): unknown {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: registry.groups().map((g) => groupEntry(registry, g)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): unknown | undefined {
  if (!registry.groups().includes(group)) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...(groupEntry(registry, group) as object) };
}

function resourceEntries(r: ResourceType): unknown[] {
  const entries: unknown[] = [
    {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.readOnly
        ? READ_ONLY_VERBS
        : r.terminating
          ? TERMINATING_VERBS
          : r.kind === "Namespace"
            ? VERBS.filter((v) => v !== "deletecollection")
            : VERBS,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
      storageVersionHash: Buffer.from(`${r.group}/${r.versions[0]}/${r.kind}`)
        .toString("base64")
        .slice(0, 11),
    },
  ];
  if (r.status) {
    entries.push({
      name: `${r.plural}/status`,
      singularName: "",
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: SUBRESOURCE_VERBS,
    });
  }
  if (r.scale) {
    entries.push({
      name: `${r.plural}/scale`,
      singularName: "",
      namespaced: r.namespaced,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: SUBRESOURCE_VERBS,
    });
  }
  return entries;
}

export function apiResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): unknown | undefined {
  const resources = registry.all.filter((r) => r.group === group && r.versions.includes(version));
  if (resources.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(group, version),
    resources: resources.flatMap(resourceEntries),
  };
}

function openApiPathPrefix(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** The group-versions served, as `/openapi/v3` lists them. */
export function openApiV3Root(registry: ResourceRegistry): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const r of registry.all) {
    for (const v of r.versions) {
      const prefix = openApiPathPrefix(r.group, v);
      paths[prefix] = {
        serverRelativeURL: `/openapi/v3/${prefix}?hash=${Buffer.from(prefix).toString("hex").slice(0, 32)}`,
      };
    }
  }
  return { paths };
}

/**
 * A minimal OpenAPI 3 document for one group-version: every object kind as a schema carrying
 * `x-kubernetes-group-version-kind`, and the operations with their query parameters (kubectl looks
 * for `fieldValidation` on PATCH to decide that the server validates fields itself).
 */
export function openApiV3GroupVersion(
  registry: ResourceRegistry,
  group: string,
  version: string,
  schemaFor: (r: ResourceType, version: string) => unknown,
): unknown | undefined {
  const resources = registry.all.filter((r) => r.group === group && r.versions.includes(version));
  if (resources.length === 0) return undefined;
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  const reversedGroup = (group || "core").split(".").reverse().join(".");
  const param = (name: string) => ({ name, in: "query", schema: { type: "string", uniqueItems: true } });
  for (const r of resources) {
    const name = `${reversedGroup}.${version}.${r.kind}`;
    const gvk = { group, version, kind: r.kind };
    const schema = (schemaFor(r, version) as Record<string, unknown> | undefined) ?? {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    };
    schemas[name] = { ...schema, "x-kubernetes-group-version-kind": [gvk] };
    const ref = { $ref: `#/components/schemas/${name}` };
    const body = { content: { "application/json": { schema: ref } } };
    const ok = { "200": { description: "OK", content: { "application/json": { schema: ref } } } };
    const base = `/${openApiPathPrefix(group, version)}${r.namespaced ? "/namespaces/{namespace}" : ""}/${r.plural}`;
    const writeParams = [param("dryRun"), param("fieldManager"), param("fieldValidation")];
    paths[base] = {
      get: { "x-kubernetes-action": "list", "x-kubernetes-group-version-kind": gvk, responses: ok },
      post: {
        "x-kubernetes-action": "post",
        "x-kubernetes-group-version-kind": gvk,
        requestBody: body,
        responses: ok,
        parameters: writeParams,
      },
    };
    paths[`${base}/{name}`] = {
      get: { "x-kubernetes-action": "get", "x-kubernetes-group-version-kind": gvk, responses: ok },
      put: {
        "x-kubernetes-action": "put",
        "x-kubernetes-group-version-kind": gvk,
        requestBody: body,
        responses: ok,
        parameters: writeParams,
      },
      patch: {
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": gvk,
        requestBody: {
          content: Object.fromEntries(
            ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"]
              .concat(r.builtin ? ["application/strategic-merge-patch+json"] : [])
              .map((t) => [t, { schema: { type: "object" } }]),
          ),
        },
        responses: ok,
        parameters: [...writeParams, param("force")],
      },
      delete: { "x-kubernetes-action": "delete", "x-kubernetes-group-version-kind": gvk, responses: ok },
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}
