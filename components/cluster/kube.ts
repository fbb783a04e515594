import { createHash } from "node:crypto";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as path from "node:path";
import { parse } from "yaml";
import { declared } from "../declared";

/** Options every component passes to its Kubernetes children. */
export function kubeOptions(
  parent: pulumi.Resource,
  provider: k8s.Provider | undefined,
  extra: pulumi.CustomResourceOptions = {},
): pulumi.CustomResourceOptions {
  return { parent, ...(provider ? { provider } : {}), ...extra };
}

/**
 * Reads an object the cluster owns. `apiextensions.CustomResource.get` registers outputs only for
 * apiVersion and kind, so `spec` and `status` are named here to make them readable.
 */
export function readObject(
  name: string,
  ref: { apiVersion: string; kind: string; id: pulumi.Input<string> },
  opts: pulumi.CustomResourceOptions,
): { spec: pulumi.Output<unknown>; status: pulumi.Output<unknown> } {
  const options = { ...opts, id: ref.id };
  const read = declared(options, () => {
    const resource = new k8s.apiextensions.CustomResource(
      name,
      { apiVersion: ref.apiVersion, kind: ref.kind, spec: undefined, status: undefined },
      options,
    );
    return resource as unknown as Record<"spec" | "status", pulumi.Output<unknown>>;
  });
  return { spec: read.apply((r) => r.spec), status: read.apply((r) => r.status) };
}

/**
 * Resource args for a manifest computed inside an Output. The SDK builds the resource type token from
 * apiVersion and kind, so those must be plain strings; every other top-level field stays an Output.
 * Every object is applied with PATCH_FORCE: what the stack declares, `up` takes back after a hand edit
 * (docs/components.md, "Hand edits"); what it leaves to others, it does not declare.
 */
export function manifestArgs(
  apiVersion: string,
  kind: string,
  manifest: pulumi.Output<object>,
  fields: readonly string[],
): { apiVersion: string; kind: string; [field: string]: pulumi.Input<unknown> } {
  const field = (m: object, f: string) =>
    (withAnnotations(m as { metadata: Record<string, unknown> }, PATCH_FORCE) as Record<string, unknown>)[f];
  const rest = Object.fromEntries(fields.map((f) => [f, manifest.apply((m) => field(m, f))] as const));
  return { apiVersion, kind, ...rest };
}

/**
 * pulumi-kubernetes' annotation that makes its server-side apply force: fields another manager (a
 * controller, or someone with kubectl) set to other values are taken back instead of failing with a
 * 409 conflict. For the objects and fields the stack declares.
 */
export const PATCH_FORCE = { "pulumi.com/patchForce": "true" } as const;

/**
 * The annotations that make a Patch apply as a field manager named after it. Without them
 * pulumi-kubernetes names each Patch's manager at random (`pulumi-kubernetes-<suffix>`, provider.go
 * fieldManagerName) and keeps the name only in the stack's state: the same Patch declared again after
 * that state was lost would apply as another manager and release nothing the first one wrote.
 */
export function patchFieldManager(patchName: string): { "pulumi.com/patchFieldManager": string } {
  const name = `openshift-topology-${patchName}`;
  // The API server takes a manager of at most 128 characters (ValidateManagedFields).
  const manager =
    name.length <= 128
      ? name
      : `${name.slice(0, 119)}-${createHash("sha256").update(name).digest("hex").slice(0, 8)}`;
  return { "pulumi.com/patchFieldManager": manager };
}

/** The manifest with `annotations` added to its own. */
export function withAnnotations<T extends { metadata: Record<string, unknown> }>(
  manifest: T,
  annotations: Record<string, string>,
): T {
  const own = manifest.metadata.annotations as Record<string, string> | undefined;
  return { ...manifest, metadata: { ...manifest.metadata, annotations: { ...own, ...annotations } } };
}

const PATH_LIKE = /^(~|\.{1,2}[\\/]|\/|[A-Za-z]:\\)|\.(ya?ml|json|conf|kubeconfig)$|(^|[\\/])(kube)?config$/;

/**
 * Why `text` cannot be a kubeconfig's content, or undefined when it can. The waiters run long after the
 * preview, so a kubeconfig given as its path (or as any other text) must be caught here. A kubeconfig is
 * a secret: the reason never quotes the text, except a path, which is not one.
 */
export function kubeconfigProblem(text: unknown): string | undefined {
  const expected =
    "expected the content of a kubeconfig (YAML with clusters, contexts and users, as `oc login` writes it)";
  if (typeof text !== "string" || text.trim() === "") return `is empty: ${expected}`;
  const line = text.trim();
  // $KUBECONFIG's form: pulumi-kubernetes reads a kubeconfig value as one file when it exists, else as
  // content (provider/pkg/provider/util.go, parseKubeconfigString), so a list would be taken as content.
  const files = line.split(path.delimiter);
  if (!line.includes("\n") && files.length > 1 && files.every((f) => f === "" || PATH_LIKE.test(f))) {
    return `is a list of files (${line}), as $KUBECONFIG holds them, but a kubeconfig value is one file's path or a kubeconfig's content, and anything else is read as content: give one file, or merge them into one (KUBECONFIG=${line} kubectl config view --flatten > merged-kubeconfig)`;
  }
  if (!line.includes("\n") && PATH_LIKE.test(line)) {
    return `looks like a file path (${line}), not a kubeconfig: pass the file's content, e.g. fs.readFileSync(${JSON.stringify(line)}, "utf8")`;
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return `is not a kubeconfig, it is not YAML: ${expected}`;
  }
  const config = doc as {
    clusters?: unknown;
    contexts?: unknown;
    users?: unknown;
    "current-context"?: unknown;
  };
  const named = (list: unknown) =>
    Array.isArray(list) ? list.map((entry) => (entry as { name?: unknown } | null)?.name) : undefined;
  const contexts = named(config?.contexts);
  if (typeof doc !== "object" || doc === null || !named(config.clusters)?.length || !contexts?.length) {
    return `is not a kubeconfig: ${expected}`;
  }
  const current = config["current-context"];
  if (typeof current === "string" && current !== "" && !contexts.includes(current)) {
    return `names current-context ${JSON.stringify(current)}, which none of its contexts is (${contexts.map((c) => JSON.stringify(c)).join(", ")})`;
  }
  return undefined;
}

/**
 * What a component passes to each object it declares when the user adopts what exists: Pulumi's
 * `import` option with the object's pulumi-kubernetes id (`<namespace>/<name>`, or the name of a
 * cluster-scoped object). The first `up` reads the object (an import step; one that is missing fails it)
 * and then applies what the program declares differently, each field in the preview's diff; later runs
 * find it in the state and ignore the option.
 */
export function adoptOption(
  adopt: boolean | undefined,
  name: string,
  namespace?: string,
): pulumi.CustomResourceOptions {
  return adopt ? { import: namespace ? `${namespace}/${name}` : name } : {};
}
