/**
 * What a patch of an object the cluster owns must give back when it is released. pulumi-kubernetes
 * releases a Patch resource by applying an empty object with its field manager (pkg/ssa, Relinquish):
 * the fields it owned alone are removed, whoever set them before. So the earlier values of the fields a
 * patch writes are read before it first applies, and put back once it is released when the release
 * left them unset; an object the patch created (server-side apply creates what is absent) is deleted
 * once nothing but its metadata is left. What was read is also kept on the object itself (EARLIER_ANNOTATION),
 * under the patch's own field manager, so that a stack whose state was lost and that adopts the object again
 * gives back what was there before the first stack, not what that stack's patch had written.
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

/** Writes a restore makes when no earlier manager is known, and the manager of EARLIER_ANNOTATION. */
export const RESTORE_FIELD_MANAGER = "openshift-topology-restore";

/**
 * The annotation on a patched object that keeps what its patches took, as JSON: each patch's field
 * manager (`pulumi.com/patchFieldManager`) to its Earlier. Removed when the last of them is released.
 */
export const EARLIER_ANNOTATION = "openshift-topology.io/patch-earlier";

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

/** The records EARLIER_ANNOTATION holds, by field manager; none when it is absent or not ours to read. */
function records(object: KubeObject): Record<string, Earlier> {
  const text = (object.metadata.annotations as Record<string, string> | undefined)?.[EARLIER_ANNOTATION];
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, Earlier>)
      : {};
  } catch {
    return {};
  }
}

type ManagedEntry = { manager?: string; fieldsV1?: unknown };

/** Whether a managedFields entry owns a field of the object outside its metadata. */
const ownsContent = (e: ManagedEntry) =>
  Object.keys((e.fieldsV1 ?? {}) as object).some((k) => k !== "f:metadata");

/**
 * Whether the patch applying as `own` created the object: it wrote to it, and no one but it and the
 * restore did (an object written by no recorded manager at all is not the patch's).
 */
function createdBy(object: KubeObject, own: string): boolean {
  const entries = (object.metadata.managedFields ?? []) as ManagedEntry[];
  const writers = entries.filter(ownsContent).map((e) => e.manager);
  return writers.includes(own) && writers.every((m) => m === own || m === RESTORE_FIELD_MANAGER);
}

const pathKey = (path: readonly string[]) => JSON.stringify(path);

/**
 * Reads what the fields at `paths` of the target hold before the patch applying as `fieldManager`
 * writes them, and keeps it on the object. A path the object's record of that manager already holds
 * keeps what the record says: the patch applied under a state that was lost, and the record holds what
 * was there before it, which the field no longer does. Without a record (kept by no earlier version), a
 * field that manager owns was written by the patch, so what it held before is unknown and left unset,
 * and an object only that manager wrote to was created by it.
 */
export async function recordEarlier(options: {
  kubeconfig: string;
  target: PatchTarget;
  paths: readonly string[][];
  fieldManager?: string;
  timeoutMs: number;
}): Promise<Earlier> {
  const { target, paths, fieldManager } = options;
  const client = createApiClient(options.kubeconfig);
  const resource = guessResource(target.apiVersion, target.kind, target.namespace !== undefined);
  const live = await withRetry(() => client.get(resource, target.name, target.namespace), options);
  if (!live) return { existed: false, fields: paths.map((path) => ({ path })) };
  const kept = fieldManager === undefined ? undefined : records(live)[fieldManager];
  const known = new Map((kept?.fields ?? []).map((f) => [pathKey(f.path), f]));
  const read = (path: string[]): EarlierField => {
    const at = valueAt(live, path);
    const manager = managerOf(live, path);
    return at && (fieldManager === undefined || manager !== fieldManager)
      ? { path, value: at.value, manager }
      : { path };
  };
  const earlier: Earlier = {
    existed: kept?.existed ?? !(fieldManager !== undefined && createdBy(live, fieldManager)),
    fields: paths.map((path) => known.get(pathKey(path)) ?? read(path)),
  };
  if (fieldManager !== undefined && earlier.existed) {
    const fresh = earlier.fields.filter((f) => !known.has(pathKey(f.path)));
    if (!kept || fresh.length > 0) {
      const fields = [...(kept?.fields ?? []), ...fresh];
      await keepEarlier({ ...options, fieldManager, earlier: { existed: true, fields } });
    }
  }
  return earlier;
}

/** Keeps `earlier` on the object as `fieldManager`'s record (replacing one it had), if the object exists. */
export async function keepEarlier(options: {
  kubeconfig: string;
  target: PatchTarget;
  fieldManager: string;
  earlier: Earlier;
  timeoutMs: number;
}): Promise<void> {
  await rewriteRecords(options, (all) => ({ ...all, [options.fieldManager]: options.earlier }));
}

/**
 * Rewrites EARLIER_ANNOTATION with `change`, guarded by the resourceVersion it read: a conflict reads
 * again, as client-go's retry.RetryOnConflict does (DefaultRetry: 5 steps). The annotation goes when no
 * record is left.
 */
async function rewriteRecords(
  options: { kubeconfig: string; target: PatchTarget; timeoutMs: number },
  change: (all: Record<string, Earlier>) => Record<string, Earlier>,
): Promise<void> {
  const { target } = options;
  const client = createApiClient(options.kubeconfig);
  const resource = guessResource(target.apiVersion, target.kind, target.namespace !== undefined);
  for (let attempt = 1; ; attempt++) {
    const live = await withRetry(() => client.get(resource, target.name, target.namespace), options);
    if (!live) return;
    const before = records(live);
    const after = change(before);
    if (JSON.stringify(after) === JSON.stringify(before)) return;
    const value = Object.keys(after).length > 0 ? JSON.stringify(after) : null;
    // The last annotation removed, the object is left with none rather than an empty map.
    const others = Object.keys(live.metadata.annotations ?? {}).filter((k) => k !== EARLIER_ANNOTATION);
    const annotations = value === null && others.length === 0 ? null : { [EARLIER_ANNOTATION]: value };
    const patch = { metadata: { annotations, resourceVersion: live.metadata.resourceVersion } };
    try {
      await withRetry(
        () =>
          client.mergePatch(resource, target.name, target.namespace, patch, undefined, RESTORE_FIELD_MANAGER),
        options,
      );
      return;
    } catch (e) {
      if ((e as { status?: number }).status !== 409 || attempt >= CONFLICT_ATTEMPTS) throw e;
    }
  }
}

const CONFLICT_ATTEMPTS = 5;

/**
 * After the patch was released: puts back each earlier value the release left unset, as the manager
 * that had set it (a field changed by hand since stays as it is), or deletes the object the patch
 * created when nothing but its metadata is left. Returns what it did, for the log.
 */
export async function restoreEarlier(options: {
  kubeconfig: string;
  target: PatchTarget;
  earlier: Earlier;
  fieldManager?: string;
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
  const { fieldManager } = options;
  if (fieldManager !== undefined) {
    await rewriteRecords(options, (all) =>
      Object.fromEntries(Object.entries(all).filter(([m]) => m !== fieldManager)),
    );
  }
  return done;
}
