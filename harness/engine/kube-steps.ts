/**
 * Kubernetes resources' steps carried out as pulumi-kubernetes 4.x carries them out (provider.go and
 * await.go): import reads the object, create is client-side, update is a server-side apply after the
 * create's fields move to the resource's manager, both awaiting what readiness.ts asks, replace deletes
 * a named object first and creates an autonamed one first, and delete waits until the object is gone.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import {
  CSA_FIELD_MANAGER,
  describeKubeError,
  goErrorMessage,
  isAlreadyExists,
  isConflict,
  isNoMatch,
  isNotFound,
  kubeType,
  KubeType,
  manifestOf,
  PATCH_FORCE_ANNOTATION,
  sleep,
  timeoutSeconds,
} from "../kube";
import { reveal } from "../secrets";
import type { CheckpointResource } from "./checkpoint";
import type { StepContext } from "./step-context";
import { idOf, liveInputs, withPaths } from "./diff";
import { checkKubeInputs, checkpointObject, fieldManagerName, isAutonamed } from "./kube-check";
import type { Registration } from "./monitor";
import { KubePlan, kubePlan, replaceRequested } from "./plan";
import { Readiness, readinessOf } from "./readiness";
import { removedApiError } from "./removed-apis";
import { deletesBeforeReplace, importedReplacement } from "./replace-on-changes";
import { containsUnknown, Props } from "./rpc";

/** A create or update whose object did not become ready in time: kept in the state as InitErrors. */
class NotReady extends Error {
  constructor(
    readonly id: string,
    readonly live: Props,
    message: string,
  ) {
    super(message);
  }
}

export async function kubeStep(
  d: StepContext,
  registration: Registration,
): Promise<{ id: string; outputs: Props }> {
  const type = kubeType(registration.type)!;
  const known = d.priorOf(registration);
  const imported = known || !registration.importId ? undefined : await importKube(d, registration, type);
  const old = known ?? imported;
  const checked = (olds: Props | undefined): Registration => {
    try {
      return {
        ...registration,
        inputs: checkKubeInputs(registration.urn, type.patch, registration.inputs, olds),
      };
    } catch (error) {
      throw d.fail(registration, old ? "update" : "create", error);
    }
  };
  let r = checked(old?.inputs);
  // provider.go, Check: a kind the cluster's release no longer serves at this apiVersion is warned about.
  const cluster = d.clusterOf(r.provider);
  const removed =
    cluster &&
    (await removedApiError(type.apiVersion, type.kind, () => cluster.serverMinor()).catch(() => undefined));
  if (removed) d.log("warning", removed, r.urn);
  let plan: KubePlan;
  try {
    plan = kubePlan(type, old, r, d.kubeSettings(r.provider), replaceRequested(r.urn, d.options.replace));
  } catch (error) {
    throw d.fail(r, old ? "update" : "create", error);
  }
  const { op, diffs, renamed, replacing } = plan;
  if (op === "replace" && old!.protect && r.protect) {
    throw d.fail(
      r,
      op,
      new Error(
        `unable to replace resource "${r.urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
      ),
    );
  }
  if (op === "replace" && r.importId) {
    const message = importedReplacement(replacing, old!.inputs ?? {}, r.inputs);
    if (!d.dryRun) throw d.fail(r, op, new Error(message));
    d.log("warning", message, r.urn);
  }
  // A replacement is checked again without old inputs (step_generator.go): an autonamed object gets a
  // new name, so its replacement is created before the old one is deleted.
  const autonamed = op === "replace" && isAutonamed(r.inputs);
  if (autonamed) r = checked(undefined);
  if (!imported || op !== "same") d.step(op, r, diffs);
  if (d.dryRun && (op === "create" || op === "update")) await previewKube(d, r, op, old?.outputs);
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
  // The old object goes first as the program's deleteBeforeReplace says, else when the new one has its
  // name (pulumi-kubernetes' Diff asks for it); else it is deleted after the deployment.
  const deleteFirst = deletesBeforeReplace(r.deleteBeforeReplace, !renamed && !autonamed);
  const state = op === "update" ? old!.outputs : undefined;
  const manager = fieldManagerName(r.urn, r.inputs, state);
  return d.carryOut(
    op,
    r,
    async () => {
      try {
        // The provider's environment is the CLI's.
        const awaitAll = { ...process.env, ...d.options.env }.PULUMI_K8S_AWAIT_ALL === "true";
        const readiness = readinessOf(type, reveal(r.inputs) as Props, awaitAll);
        if (op === "replace") {
          if (deleteFirst) await deleteKube(d, old!);
          else d.replaced.push(old!);
        }
        const live =
          op === "update" ? await updateKube(d, r, manager, old!) : await createKube(d, r, manager);
        const ready = readiness ? await awaitReady(d, r, readiness, live, op !== "update") : live;
        return { id: idOf(ready), outputs: checkpointObject(r.inputs, ready, manager, state) };
      } catch (error) {
        if (!(error instanceof NotReady)) throw error;
        d.recordInitFailure(r, error.id, r.inputs, checkpointObject(r.inputs, error.live, manager, state), [
          error.message,
        ]);
        throw new Error(error.message, { cause: error });
      }
    },
    r.inputs,
  );
}

/**
 * Awaits what `readiness` asks of the object just written, within customTimeouts.create or .update,
 * else the `pulumi.com/timeoutSeconds` annotation, else 10 minutes; past that the object did not
 * initialize, with the provider's message (provider.go, Create and Update).
 */
async function awaitReady(
  d: StepContext,
  r: Registration,
  readiness: Readiness,
  live: Props,
  created: boolean,
): Promise<Props> {
  const object = live as KubernetesObject;
  const custom = created ? r.customTimeouts.create : r.customTimeouts.update;
  const seconds = Math.min(timeoutSeconds(object, custom), readiness.limitSeconds ?? Infinity);
  const cluster = d.clusterOf(r.provider)!;
  const result = await cluster.until(object, (o) => o !== undefined && readiness.ready(o as Props), seconds);
  if (result.met) return result.live as Props;
  const id = idOf(object);
  const reason = "failed to fully initialize or become live: timed out waiting for the condition";
  throw new NotReady(
    id,
    (result.live ?? live) as Props,
    created
      ? `resource "${r.urn}" was successfully created, but the Kubernetes API server reported that it ${reason}`
      : `the Kubernetes API server reported that "${id}" ${reason}`,
  );
}

/**
 * The `import` option: the object is read (the engine's ImportStep, through pulumi-kubernetes' Read)
 * and fails the step when it is missing; what the program declares differently then updates or
 * replaces it as any change would.
 */
async function importKube(
  d: StepContext,
  r: Registration,
  type: KubeType,
): Promise<CheckpointResource | undefined> {
  d.step("import", r);
  const cluster = d.clusterOf(r.provider);
  if (!cluster) return undefined;
  let live: Props;
  try {
    const planned = d.stateOf(r, r.importId, r.inputs, {});
    live = await d.pendingDuring(planned, "importing", async () => {
      if (!d.dryRun) d.emit({ phase: "start", operation: "import", type: r.type, name: r.name });
      return (await cluster.read(type.apiVersion, type.kind, r.importId)) as Props;
    });
  } catch (error) {
    const reason = isNotFound(error)
      ? `resource '${r.importId}' does not exist`
      : `cannot read ${type.kind} ${r.importId}: ${describeKubeError(error)}`;
    throw d.fail(r, "import", new Error(reason));
  }
  const inputs = liveInputs(type, live, r.inputs);
  const imported: CheckpointResource = {
    urn: r.urn,
    custom: true,
    id: r.importId,
    type: r.type,
    inputs,
    outputs: checkpointObject(inputs, live, fieldManagerName(r.urn, r.inputs, undefined), undefined),
    provider: d.providerRef(r),
    importID: r.importId,
  };
  if (!d.dryRun) d.emit({ phase: "done", operation: "import", type: r.type, name: r.name, id: r.importId });
  return imported;
}

/** The first error of a chain of causes: what the API client threw. */
function rootCause(error: unknown): unknown {
  let cause = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  return cause;
}

/** What an error says: ours as worded, the API client's as the provider's Go error prints it. */
function reasonOf(error: unknown, type?: KubeType): string {
  const cause = rootCause(error);
  if (cause !== error) return (error as Error).message;
  return goErrorMessage(error, type);
}

/** An update of a kind the cluster does not serve, in the provider's words (provider.go, Update). */
const noKindToUpdate = (r: Registration, reason: string) =>
  `update of resource "${r.urn}" failed because the Kubernetes API server reported that the apiVersion for this resource does not exist. Verify that any required CRDs have been created: ${reason}`;

/** A create the API server refused, in the provider's words (provider.go, Create). */
const notCreated = (r: Registration, reason: string) =>
  `resource "${r.urn}" was not successfully created by the Kubernetes API server: ${reason}`;

/**
 * How often Creation tries a create that failed with NotFound or NoMatch, and its first wait, doubled
 * after each try (await.go, Creation: SleepingRetry(...).WithMaxRetries(5).WithBackoffFactor(2); retry.go,
 * Do sleeps after every retryable failure, the last one included): six tries over 63 seconds.
 */
const CREATE_RETRIES = 5;
const CREATE_FIRST_WAIT_MS = 1000;

/**
 * A create as pulumi-kubernetes does it (await.go, Creation): client-side under the static manager,
 * failing on an object that exists, unless the provider upserts or the resource is a Patch, which apply
 * server-side as the resource's manager. A namespace not created yet (NotFound) or a kind not served
 * yet (NoMatch, a CRD on its way) is tried again with backoff, then fails with the provider's message.
 */
async function createKube(d: StepContext, r: Registration, manager: string): Promise<Props> {
  const type = kubeType(r.type)!;
  const object = manifestOf(type, reveal(r.inputs) as Props);
  const attempt = async (): Promise<Props> => {
    try {
      if (type.patch || d.kubeSettings(r.provider).upsertExistingObjects)
        return await applyKube(d, r, manager, [], false);
      return (await cluster.create(object)) as Props;
    } catch (error) {
      const cause = rootCause(error);
      const reason = isNoMatch(cause) ? goErrorMessage(cause, type) : reasonOf(error, type);
      throw new Error(notCreated(r, reason), { cause: error });
    }
  };
  const cluster = d.clusterOf(r.provider)!;
  let wait = CREATE_FIRST_WAIT_MS;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const cause = rootCause(error);
      // skipRetry: a kind the cluster's release removed is no CRD on its way, and fails at once.
      const removed = isNoMatch(cause)
        ? await removedApiError(type.apiVersion, type.kind, () => cluster.serverMinor())
        : undefined;
      if (removed) throw new Error(notCreated(r, removed), { cause: error });
      d.log("info", `Retry #${tries}; creation failed: ${goErrorMessage(cause, type)}`, r.urn, true);
      const retryable = isNotFound(cause) || isNoMatch(cause);
      if (retryable) await (d.options.sleep ?? sleep)(wait);
      if (retryable && tries < CREATE_RETRIES) {
        wait *= 2;
        continue;
      }
      if (!isNoMatch(cause)) throw error;
      // provider.go, Create: a CRD that never came.
      throw new Error(
        `creation of resource "${r.urn}" with kind ${type.apiVersion}/${type.kind} failed because the Kubernetes API server reported that the apiVersion for this resource does not exist. Verify that any required CRDs have been created: no matches for kind "${type.kind}" in version "${type.apiVersion}"`,
        { cause: error },
      );
    }
  }
}

/**
 * Server-side apply; on update, the fields of client-side writers (the create's) move to the
 * resource's manager first (fixCSAFieldManagers), and `ignoreChanges` paths carry what the cluster has
 * now (e.g. replicas an autoscaler set), as pulumi-kubernetes does in SSA mode: the apply neither takes
 * the field back nor drops it.
 */
async function applyKube(
  d: StepContext,
  r: Registration,
  manager: string,
  ignored: string[],
  update: boolean,
): Promise<Props> {
  const type = kubeType(r.type)!;
  const cluster = d.clusterOf(r.provider)!;
  let object = manifestOf(type, reveal(r.inputs) as Props);
  let live: KubernetesObject | undefined;
  if (update) {
    const { name, namespace } = object.metadata ?? {};
    live = await cluster.read(
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
  const force = patchForce(d, r, object, update ? live : undefined, false);
  try {
    return (await cluster.apply(object, manager, force)) as Props;
  } catch (error) {
    throw new Error(ssaError(error, manager), { cause: error });
  }
}

/** A refused server-side apply, a conflict in the provider's words (await.go, handleSSAErr). */
function ssaError(error: unknown, manager: string): string {
  const message = goErrorMessage(error);
  if (!isConflict(error)) return message;
  return (
    `server-side apply field conflict detected, see ${SSA_CONFLICT_HELP} for troubleshooting help\n` +
    `The resource managed by field manager "${manager}" had an apply conflict: ${message}`
  );
}

const SSA_CONFLICT_HELP =
  "https://www.pulumi.com/registry/packages/kubernetes/how-to-guides/managing-resources-with-server-side-apply/#handle-field-conflicts-on-existing-resources";

/** The reason an update failed, in the provider's words once it read the object back (provider.go, Update). */
const notUpdated = (id: string, reason: string) =>
  `the Kubernetes API server reported that "${id}" failed to fully initialize or become live: ${reason}`;

/**
 * An update as provider.go's Update carries it out: a server-side apply; when the API server refuses
 * it, the object is read back and kept in the state with the refusal as InitErrors (the next up tries
 * again), or the step fails when it cannot be read, or when the kind is no longer served.
 */
async function updateKube(
  d: StepContext,
  r: Registration,
  manager: string,
  old: CheckpointResource,
): Promise<Props> {
  try {
    return await applyKube(d, r, manager, r.ignoreChanges, true);
  } catch (error) {
    const type = kubeType(r.type)!;
    const cause = rootCause(error);
    if (isNoMatch(cause)) throw new Error(noKindToUpdate(r, goErrorMessage(cause, type)), { cause: error });
    const reason = reasonOf(error, type);
    let live: Props;
    try {
      live = (await d.clusterOf(r.provider)!.read(type.apiVersion, type.kind, old.id!)) as Props;
    } catch (getError) {
      throw new Error(
        `update of resource "${r.urn}" failed: ${reason}\nunable to get cluster state: ${goErrorMessage(getError)}`,
        { cause: getError },
      );
    }
    throw new NotReady(idOf(live), live, notUpdated(idOf(live), reason));
  }
}

/**
 * Whether an apply takes fields other managers hold (await.go, patchForce): the `pulumi.com/patchForce`
 * annotation, the provider's `enablePatchForce`, an object without managed fields; in a preview, also a
 * create (no live object) and an object whose client-side fields a real update would first take over.
 */
function patchForce(
  d: StepContext,
  r: Registration,
  object: KubernetesObject,
  live: KubernetesObject | undefined,
  preview: boolean,
): boolean {
  if (object.metadata?.annotations?.[PATCH_FORCE_ANNOTATION] === "true") return true;
  if (d.kubeSettings(r.provider).enablePatchForce) return true;
  const managed = (live?.metadata?.managedFields ?? []) as Array<{ manager?: string; operation?: string }>;
  if (preview) {
    if (!live) return true;
    const csa = ["pulumi-resource-kubernetes", CSA_FIELD_MANAGER, "pulumi-kubernetes.exe"];
    if (managed.some((e) => e.operation === "Update" && csa.includes(e.manager ?? ""))) return true;
  }
  return live !== undefined && managed.length === 0;
}

/**
 * What a preview asks of the API server, as pulumi-kubernetes previews (provider.go, Create and Update
 * with preview: await.Creation and ssaUpdate under dryRun=All): the create or the update is tried and
 * not stored, so what admission, validation or another field manager refuses fails the preview as it
 * would fail the up. An object that already exists, a namespace not there yet and a forbidden dry run
 * are no refusal (provider.go, Create's failedPreview; Update's IsForbidden). Nothing is asked while
 * the provider's cluster or an input is unknown, for a kind not served, nor for a Patch's create
 * (Create's skipPreview).
 */
async function previewKube(
  d: StepContext,
  r: Registration,
  op: "create" | "update",
  state: Props | undefined,
): Promise<void> {
  const cluster = d.clusterOf(r.provider);
  if (!cluster || containsUnknown(r.inputs)) return;
  const type = kubeType(r.type)!;
  let object = manifestOf(type, reveal(r.inputs) as Props);
  const manager = fieldManagerName(r.urn, r.inputs, state);
  try {
    if (op === "create") {
      // A Patch resource's create is not previewed (provider.go, Create's skipPreview).
      if (type.patch) return;
      if (d.kubeSettings(r.provider).upsertExistingObjects)
        await cluster.apply(object, manager, patchForce(d, r, object, undefined, true), true);
      else await cluster.create(object, true);
      return;
    }
    const live = await cluster.read(type.apiVersion, type.kind, idOf(object));
    object = withPaths(
      object as unknown as Props,
      live as Props,
      r.ignoreChanges,
    ) as unknown as KubernetesObject;
    await cluster.apply(object, manager, patchForce(d, r, object, live, true), true);
  } catch (error) {
    const cause = rootCause(error);
    const code = (cause as { code?: unknown }).code;
    if (code === 403) return;
    // A kind not served (no CRD yet) is not previewed either (skipPreview, gvkExists).
    if (op === "create" && (isNoMatch(cause) || isAlreadyExists(cause) || isNotFound(cause))) return;
    const reason =
      op === "create"
        ? notCreated(r, isConflict(cause) ? ssaError(cause, manager) : goErrorMessage(cause, type))
        : isNoMatch(cause)
          ? noKindToUpdate(r, goErrorMessage(cause, type))
          : notUpdated(idOf(object), ssaError(cause, manager));
    throw d.fail(r, op, new Error(reason, { cause: error }));
  }
}

/** Deletes the object and waits until it is gone, within customTimeouts.delete (await.go, Deletion). */
export async function deleteKube(d: StepContext, resource: CheckpointResource): Promise<void> {
  const type = kubeType(resource.type)!;
  const object = manifestOf(type, reveal(resource.inputs ?? {}) as Props);
  const cluster = d.clusterOf(resource.provider)!;
  const manager = fieldManagerName(resource.urn, resource.inputs ?? {}, resource.outputs ?? {});
  if (type.patch) await cluster.relinquish(object, manager);
  else await cluster.delete(object, timeoutSeconds(object, resource.customTimeouts?.delete ?? 0));
}
