/**
 * `pulumi refresh`'s steps: every resource read back, inputs as well as outputs (the provider's read
 * result), and shown as drift what an `up` of the unchanged program would now change, as the engine's
 * refresh step does. The next `up` then takes the drifted fields back.
 */
import { DYNAMIC_TYPE_PREFIX } from "../dynamic";
import { describeKubeError, isNotFound, kubeType, KubeType, manifestOf, normalizeInputs } from "../kube";
import { annotateSecrets, markSecret, reveal, secretKeys } from "../secrets";
import { CheckpointResource, nameOf } from "./checkpoint";
import type { StepContext } from "./step-context";
import { diffPaths, liveInputs, withoutProvider, withPaths } from "./diff";
import { checkpointObject, fieldManagerName } from "./kube-check";
import type { PlanStep, StepOp } from "./plan";
import type { Props } from "./rpc";

interface Refreshed {
  id: string;
  inputs: Props;
  outputs: Props;
  diffs: string[];
  changed: boolean;
}

/** A Kubernetes object read back: its inputs are the live fields the program declared. */
async function readKube(
  d: StepContext,
  resource: CheckpointResource,
  k8s: KubeType,
): Promise<Refreshed | undefined> {
  let live: Props;
  try {
    live = (await d.clusterOf(resource.provider)!.read(k8s.apiVersion, k8s.kind, resource.id!)) as Props;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new Error(describeKubeError(error), { cause: error });
  }
  const declared = normalizeInputs(k8s, reveal(resource.inputs ?? {}) as Props);
  const inputs = liveInputs(k8s, live, resource.inputs);
  // As the engine's refresh diffs: what the program lets another actor own (its ignoreChanges) is no
  // drift, though the state takes what was read.
  const wanted = withPaths(inputs, declared, resource.ignoreChanges ?? []);
  const diffs = diffPaths(manifestOf(k8s, declared), manifestOf(k8s, wanted));
  const manager = fieldManagerName(resource.urn, resource.inputs ?? {}, resource.outputs ?? {});
  const outputs = checkpointObject(inputs, live, manager, resource.outputs);
  return { id: resource.id!, inputs, outputs, diffs, changed: diffs.length > 0 };
}

/** A dynamic resource read back by its provider; the provider's diff against the last inputs decides drift. */
async function readDynamic(d: StepContext, resource: CheckpointResource): Promise<Refreshed | undefined> {
  const host = await d.dynamicHost();
  const declared = resource.inputs ?? {};
  const read = await host.read(resource.urn, resource.id!, declared, resource.outputs ?? {});
  if (!read.id) return undefined;
  const inputs = read.inputs ? (annotateSecrets(read.inputs, declared) as Props) : declared;
  const diff = await host.diff(resource.urn, read.id, read.outputs, declared);
  const visible = withoutProvider(declared);
  const diffs = Object.keys(visible).filter((k) => diffPaths(visible[k], read.outputs[k]).length > 0);
  const changed = diff.changes === "unknown" ? diffs.length > 0 : diff.changes === "some";
  return { id: read.id, inputs, outputs: read.outputs, diffs: changed ? diffs : [], changed };
}

/**
 * Reads `checkpoint` back: the refreshed resources (those gone dropped, those that failed to read kept
 * as they were, their failures in the deployment's diagnostics) and the steps shown.
 */
export async function refreshResources(
  d: StepContext,
  checkpoint: CheckpointResource[],
): Promise<{ plan: PlanStep[]; resources: CheckpointResource[] }> {
  const plan: PlanStep[] = [];
  const resources: CheckpointResource[] = [];
  for (const resource of checkpoint) {
    const k8s = kubeType(resource.type);
    const dynamic = resource.type.startsWith(DYNAMIC_TYPE_PREFIX);
    if (!resource.custom || (!k8s && !dynamic)) {
      resources.push(resource);
      continue;
    }
    const step = (op: StepOp, diffs: string[]) =>
      plan.push({ op, urn: resource.urn, type: resource.type, name: nameOf(resource.urn), diffs });
    try {
      const refreshed = k8s ? await readKube(d, resource, k8s) : await readDynamic(d, resource);
      if (!refreshed) {
        // Gone: the refresh drops it from the state.
        step("delete", []);
        continue;
      }
      const { id, inputs, outputs, diffs, changed } = refreshed;
      step(
        changed ? "update" : "same",
        diffs.filter((diff) => diff !== "apiVersion" && diff !== "kind"),
      );
      resources.push({
        ...resource,
        id,
        inputs,
        outputs: markSecret(outputs, secretKeys(resource.outputs ?? {})),
      });
    } catch (error) {
      d.fail({ type: resource.type, name: nameOf(resource.urn) }, "read", error);
      resources.push(resource);
    }
  }
  return { plan, resources };
}
