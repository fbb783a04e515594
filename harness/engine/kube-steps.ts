/**
 * Kubernetes resources' steps carried out as pulumi-kubernetes 4.x carries them out (provider.go and
 * await.go): import reads the object, create is client-side, update is a server-side apply after the
 * create's fields move to the resource's manager, replace deletes a named object first, and delete
 * waits until the object is gone.
 */
import {
  deleteTimeoutSeconds,
  describeKubeError,
  fieldManager,
  isNotFound,
  kubeType,
  KubeType,
  manifestOf,
  PATCH_FORCE_ANNOTATION,
} from "../kube";
import { reveal } from "../secrets";
import type { CheckpointResource } from "./checkpoint";
import type { Deployment } from "./deployment";
import { idOf, liveInputs, withPaths } from "./diff";
import type { Registration } from "./monitor";
import { kubePlan, replaceRequested } from "./plan";
import type { Props } from "./rpc";

export async function kubeStep(d: Deployment, r: Registration): Promise<{ id: string; outputs: Props }> {
  const type = kubeType(r.type)!;
  const known = d.priorOf(r);
  const imported = known || !r.importId ? undefined : await importKube(d, r, type);
  const old = known ?? imported;
  const { op, diffs, renamed } = kubePlan(
    type,
    old ? (old.inputs ?? {}) : undefined,
    r,
    d.kubeSettings(r.provider),
    replaceRequested(r.urn, d.options.replace),
  );
  if (op === "replace" && old!.protect && r.protect) {
    throw d.fail(
      r,
      op,
      new Error(
        `unable to replace resource "${r.urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
      ),
    );
  }
  if (!imported || op !== "same") d.step(op, r, diffs);
  if (d.dryRun || op === "same") {
    // A provider whose config is unknown previews nothing: every output is unknown.
    const planned = d.clusterOf(r.provider) ? r.inputs : {};
    const outputs = op === "same" ? (old!.outputs ?? {}) : planned;
    const id = op === "same" ? old!.id! : "";
    return {
      id,
      outputs: d.record(r, id, op === "same" && imported ? old!.inputs! : r.inputs, outputs),
    };
  }
  return d.carryOut(
    op,
    r,
    async () => {
      if (op === "update") return applyKube(d, r, r.ignoreChanges, true);
      if (op === "replace") {
        // Same name: the old object goes first (delete before replace, as pulumi-kubernetes' Diff
        // asks for a named object); a renamed one is deleted after the deployment.
        if (renamed) d.replaced.push(old!);
        else await deleteKube(d, old!);
      }
      return createKube(d, r);
    },
    r.inputs,
  );
}

/**
 * The `import` option: the object is read (the engine's ImportStep, through pulumi-kubernetes' Read)
 * and fails the step when it is missing; what the program declares differently then updates or
 * replaces it as any change would.
 */
async function importKube(
  d: Deployment,
  r: Registration,
  type: KubeType,
): Promise<CheckpointResource | undefined> {
  d.step("import", r);
  const cluster = d.clusterOf(r.provider);
  if (!cluster) return undefined;
  if (!d.dryRun) d.emit({ phase: "start", operation: "import", type: r.type, name: r.name });
  let live: Props;
  try {
    live = (await cluster.read(type.apiVersion, type.kind, r.importId)) as Props;
  } catch (error) {
    const reason = isNotFound(error)
      ? `resource '${r.importId}' does not exist`
      : `cannot read ${type.kind} ${r.importId}: ${describeKubeError(error)}`;
    throw d.fail(r, "import", new Error(reason));
  }
  const imported: CheckpointResource = {
    urn: r.urn,
    custom: true,
    id: r.importId,
    type: r.type,
    inputs: liveInputs(type, live, r.inputs),
    outputs: live,
    provider: d.providerRef(r),
    importID: r.importId,
  };
  if (!d.dryRun) d.emit({ phase: "done", operation: "import", type: r.type, name: r.name, id: r.importId });
  return imported;
}

/**
 * A create as pulumi-kubernetes does it (await.go, Creation): client-side, failing on an object that
 * exists, unless the provider upserts or the resource is a Patch, which apply server-side.
 */
async function createKube(d: Deployment, r: Registration): Promise<{ id: string; outputs: Props }> {
  const type = kubeType(r.type)!;
  if (type.patch || d.kubeSettings(r.provider).upsertExistingObjects) return applyKube(d, r, [], false);
  const object = manifestOf(type, reveal(r.inputs) as Props);
  try {
    const live = await d.clusterOf(r.provider)!.create(object);
    return { id: idOf(live), outputs: live as Props };
  } catch (error) {
    throw new Error(`creation of ${type.kind} ${object.metadata?.name} failed: ${describeKubeError(error)}`, {
      cause: error,
    });
  }
}

/**
 * Server-side apply; on update, the fields of client-side writers (the create's) move to the
 * resource's manager first (fixCSAFieldManagers), and `ignoreChanges` paths carry what the cluster has
 * now (e.g. replicas an autoscaler set), as pulumi-kubernetes does in SSA mode: the apply neither takes
 * the field back nor drops it.
 */
async function applyKube(
  d: Deployment,
  r: Registration,
  ignored: string[],
  update: boolean,
): Promise<{ id: string; outputs: Props }> {
  const type = kubeType(r.type)!;
  const cluster = d.clusterOf(r.provider)!;
  const manager = fieldManager(r.urn);
  let object = manifestOf(type, reveal(r.inputs) as Props);
  if (update) {
    const { name, namespace } = object.metadata ?? {};
    let live = await cluster.read(
      String(object.apiVersion),
      String(object.kind),
      namespace ? `${namespace}/${name}` : String(name),
    );
    // Patch resources never take fields over: they would own what they do not declare.
    if (!type.patch) live = await cluster.takeOverFields(live, manager);
    if (ignored.length > 0) {
      object = withPaths(object as unknown as Props, live as Props, ignored) as unknown as typeof object;
    }
  }
  // As pulumi-kubernetes, for every resource it applies server-side, not only the Patch ones.
  const force = object.metadata?.annotations?.[PATCH_FORCE_ANNOTATION] === "true";
  try {
    const live = await cluster.apply(object, manager, force);
    return { id: idOf(live), outputs: live as Props };
  } catch (error) {
    throw new Error(
      `server-side apply of ${type.kind} ${object.metadata?.name} failed: ${describeKubeError(error)}`,
      { cause: error },
    );
  }
}

/** Deletes the object and waits until it is gone, within customTimeouts.delete (await.go, Deletion). */
export async function deleteKube(d: Deployment, resource: CheckpointResource): Promise<void> {
  const type = kubeType(resource.type)!;
  const object = manifestOf(type, reveal(resource.inputs ?? {}) as Props);
  const cluster = d.clusterOf(resource.provider)!;
  if (type.patch) await cluster.relinquish(object, fieldManager(resource.urn));
  else await cluster.delete(object, deleteTimeoutSeconds(object, resource.customTimeouts?.delete ?? 0));
}
