import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

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
  const resource = new k8s.apiextensions.CustomResource(
    name,
    { apiVersion: ref.apiVersion, kind: ref.kind, spec: undefined, status: undefined },
    { ...opts, id: ref.id },
  );
  const outputs = resource as unknown as Record<"spec" | "status", pulumi.Output<unknown>>;
  return { spec: outputs.spec, status: outputs.status };
}

/**
 * Resource args for a manifest computed inside an Output. The SDK builds the resource type token from
 * apiVersion and kind, so those must be plain strings; every other top-level field stays an Output.
 */
export function manifestArgs(
  apiVersion: string,
  kind: string,
  manifest: pulumi.Output<object>,
  fields: readonly string[],
): { apiVersion: string; kind: string; [field: string]: pulumi.Input<unknown> } {
  const rest = Object.fromEntries(
    fields.map((f) => [f, manifest.apply((m) => (m as Record<string, unknown>)[f])] as const),
  );
  return { apiVersion, kind, ...rest };
}
