/**
 * Patches of objects the cluster owns (an operator's config, a ConfigMap it reads): what a patch
 * writes to and which fields its release takes back, for the PatchRelease that gives them back
 * (provider/dynamic/patch-release.ts).
 */

/** A patch of an object the cluster owns. */
export interface PatchManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

/** The object a patch writes to. */
export function patchTarget(patch: PatchManifest) {
  const { name, namespace } = patch.metadata;
  return { apiVersion: patch.apiVersion, kind: patch.kind, name, ...(namespace ? { namespace } : {}) };
}

/**
 * The fields a patch writes, each as its keys (`["spec", "replicas"]`, `["data", "config.yaml"]`): what
 * its release takes from the object, and so what must be read before and given back after.
 */
export function patchedPaths(patch: PatchManifest): string[][] {
  return (["spec", "data"] as const).flatMap((section) =>
    Object.keys(patch[section] ?? {})
      .sort()
      .map((key) => [section, key]),
  );
}
