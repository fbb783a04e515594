/**
 * What a patch of an object the cluster owns must give back when it is released. pulumi-kubernetes
 * releases a Patch resource by applying an empty object with its field manager (pkg/ssa, Relinquish):
 * the fields it owned alone are removed, whoever set them before. So the earlier values of the fields a
 * patch writes are read before it first applies, and put back once it is released when the release
 * left them unset; an object the patch created (server-side apply creates what is absent) is deleted
 * once nothing but its metadata is left.
 */
import { createApiClient } from "./api";
import { guessResource } from "./identity";
import type { KubeObject } from "./kinds";
import { withRetry } from "./retry";

/** The object a patch writes to. */
export interface PatchTarget {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** A field a patch writes, and what it held before: its value and the manager that set it. */
export interface EarlierField {
  path: string[];
  /** Absent when the field was unset. */
  value?: unknown;
  manager?: string;
}

export interface Earlier {
  /** Whether the object existed before the patch; when not, the patch created it. */
  existed: boolean;
  fields: EarlierField[];
}

/** Writes a restore makes when no earlier manager is known. */
export const RESTORE_FIELD_MANAGER = "openshift-topology-restore";

// An array, not a Set: Pulumi's closure serialization does not rebuild a Set's entries.
const TOP_LEVEL = ["apiVersion", "kind", "metadata", "status"];

/** What `path` holds in `object`, or undefined when it holds nothing there. */
function valueAt(object: unknown, path: readonly string[]): { value: unknown } | undefined {
  let node: unknown = object;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return { value: node };
}

/** The manager whose managedFields entry (fieldsV1, `f:<key>` per level) owns `path`. */
function managerOf(object: KubeObject, path: readonly string[]): string | undefined {
  const entries = (object.metadata.managedFields ?? []) as Array<{ manager?: string; fieldsV1?: unknown }>;
  return entries.find(
    (e) =>
      valueAt(
        e.fieldsV1,
        path.map((k) => `f:${k}`),
      ) !== undefined,
  )?.manager;
}

/** A merge patch setting `value` at `path`. */
function patchAt(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

// Values read from the API server: parsed JSON, so never undefined.
const isEmpty = (value: unknown) =>
  value === null || (typeof value === "object" && Object.keys(value as object).length === 0);

const describe = (t: PatchTarget) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ""}${t.name}`;

/** Reads what the fields at `paths` of the target hold before a patch writes them. */
export async function recordEarlier(options: {
  kubeconfig: string;
  target: PatchTarget;
  paths: readonly string[][];
  timeoutMs: number;
}): Promise<Earlier> {
  const { target, paths } = options;
  const client = createApiClient(options.kubeconfig);
  const resource = guessResource(target.apiVersion, target.kind, target.namespace !== undefined);
  const live = await withRetry(() => client.get(resource, target.name, target.namespace), options);
  if (!live) return { existed: false, fields: paths.map((path) => ({ path })) };
  return {
    existed: true,
    fields: paths.map((path) => {
      const at = valueAt(live, path);
      return at ? { path, value: at.value, manager: managerOf(live, path) } : { path };
    }),
  };
}

/**
 * After the patch was released: puts back each earlier value the release left unset, as the manager
 * that had set it (a field changed by hand since stays as it is), or deletes the object the patch
 * created when nothing but its metadata is left. Returns what it did, for the log.
 */
export async function restoreEarlier(options: {
  kubeconfig: string;
  target: PatchTarget;
  earlier: Earlier;
  timeoutMs: number;
}): Promise<string[]> {
  const { target, earlier } = options;
  const client = createApiClient(options.kubeconfig);
  const resource = guessResource(target.apiVersion, target.kind, target.namespace !== undefined);
  const live = await withRetry(() => client.get(resource, target.name, target.namespace), options);
  if (!live) return [];
  if (!earlier.existed) {
    const left = Object.entries(live).filter(([key, value]) => !TOP_LEVEL.includes(key) && !isEmpty(value));
    if (left.length > 0) return [`kept ${describe(target)}: it holds ${left.map(([k]) => k).join(", ")}`];
    await withRetry(
      () =>
        client.delete(resource, target.name, target.namespace, undefined, {
          uid: live.metadata.uid,
          resourceVersion: live.metadata.resourceVersion,
        }),
      options,
    );
    return [`deleted ${describe(target)}, which the stack created`];
  }
  const done: string[] = [];
  for (const field of earlier.fields) {
    if (!("value" in field) || valueAt(live, field.path) !== undefined) continue;
    await withRetry(
      () =>
        client.mergePatch(
          resource,
          target.name,
          target.namespace,
          patchAt(field.path, field.value),
          undefined,
          field.manager ?? RESTORE_FIELD_MANAGER,
        ),
      options,
    );
    done.push(`restored ${describe(target)} ${field.path.join(".")}`);
  }
  return done;
}
