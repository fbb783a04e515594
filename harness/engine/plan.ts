/**
 * Which step a registration becomes, as the engine's step generator decides it from the checkpoint
 * (step_generator.go): create when there is no old state, replace when a replacing path changed or
 * `--replace` names it, update when anything else changed, same otherwise. Pure: the steps' carrying
 * out is in kube-steps.ts and dynamic-steps.ts.
 */
import { normalizeInputs, KubeType } from "../kube";
import { reveal } from "../secrets";
import { nameOf } from "./checkpoint";
import { diffPaths, forceNewPaths, KubeSettings, pruned, under, withoutProvider, withPaths } from "./diff";
import type { DiffResult } from "./dynamic-host";
import { parseCheckpointObject } from "./kube-check";
import type { Props } from "./rpc";

export type StepOp = "create" | "update" | "replace" | "same" | "delete" | "read" | "import";

export interface PlanStep {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Changed property paths of an update or replace; for refresh, what drifted. */
  diffs: string[];
}

/** Whether `--replace` names the resource, by URN or by name. */
export function replaceRequested(urn: string, targets: string[] | undefined): boolean {
  return (targets ?? []).some((t) => t === urn || t === nameOf(urn));
}

export interface KubePlan {
  op: StepOp;
  diffs: string[];
  /** The object's name or namespace changes: the old one is another object, deleted after the deployment. */
  renamed: boolean;
}

/**
 * A Kubernetes resource's step: ignored paths take their old inputs before the diff (as the engine
 * does); the diff is pulumi-kubernetes' (provider.go, Diff): the old live object pruned to the shape of
 * the inputs its state kept (`__inputs`) against the new inputs, less the ignored paths; a change under
 * the provider's replacing paths or `replaceOnChanges` replaces, and a resource that failed to
 * initialize is updated even without changes (step_generator.go).
 */
export function kubePlan(
  type: KubeType,
  old: { inputs?: Props; outputs?: Props; initErrors?: string[] } | undefined,
  r: { inputs: Props; ignoreChanges: string[]; replaceOnChanges: string[] },
  settings: KubeSettings,
  replace: boolean,
): KubePlan {
  const oldInputs = old ? (old.inputs ?? {}) : undefined;
  const normal = (props: Props) => normalizeInputs(type, reveal(props) as Props);
  let diffs: string[] = [];
  if (oldInputs) {
    const state = parseCheckpointObject(reveal(old!.outputs ?? {}) as Props, oldInputs);
    const kept = normal(state.inputs);
    diffs = diffPaths(
      pruned(state.live, kept),
      normal(withPaths(r.inputs, oldInputs, r.ignoreChanges)),
    ).filter((d) => !r.ignoreChanges.some((p) => under(d, p)));
  }
  const renamed = diffs.some((d) => d === "metadata.name" || d === "metadata.namespace");
  const forceNew = [...forceNewPaths(type, reveal(r.inputs) as Props, settings), ...r.replaceOnChanges];
  const replaces = diffs.filter((d) => forceNew.some((p) => under(d, p)));
  const op: StepOp = !oldInputs
    ? "create"
    : replaces.length > 0 || replace
      ? "replace"
      : diffs.length > 0 || (old?.initErrors?.length ?? 0) > 0
        ? "update"
        : "same";
  return { op, diffs, renamed };
}

/**
 * A dynamic resource's step from its provider's Diff: the changed top-level inputs are shown, or the
 * replacing ones on a replace; a resource that failed to initialize is updated even without changes
 * (step_generator.go).
 */
export function dynamicPlan(
  old: { inputs?: Props; initErrors?: string[] },
  inputs: Props,
  diff: DiffResult,
  replace: boolean,
): { op: StepOp; diffs: string[] } {
  const diffs = [
    ...new Set(
      diffPaths(withoutProvider(old.inputs ?? {}), withoutProvider(inputs)).map((d) => d.split(".")[0]),
    ),
  ];
  const changed =
    (diff.changes === "unknown" ? diffs.length > 0 : diff.changes === "some") ||
    (old.initErrors?.length ?? 0) > 0;
  const op: StepOp = diff.replaces.length > 0 || replace ? "replace" : changed ? "update" : "same";
  return { op, diffs: op === "replace" && diff.replaces.length > 0 ? diff.replaces : diffs };
}
