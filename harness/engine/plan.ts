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
import {
  applyReplaceOnChanges,
  changedPaths,
  deletesBeforeReplace,
  engineDiff,
  formatPropertyPath,
  isReplacement,
  pathContains,
  ProviderDiff,
  replacingPaths,
} from "./replace-on-changes";
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
  /** What replaces it: the replacing paths, or `id` for `--replace`. */
  replacing: string[];
}

/**
 * A Kubernetes resource's step: ignored paths take their old inputs before the diff (as the engine
 * does); the diff is pulumi-kubernetes' (provider.go, Diff): the old live object pruned to the shape of
 * the inputs its state kept (`__inputs`) against the new inputs, less the ignored paths; a change under
 * the provider's replacing paths replaces, as does one `replaceOnChanges` covers (replace-on-changes.ts),
 * and a resource that failed to initialize is updated even without changes (step_generator.go).
 */
export function kubePlan(
  type: KubeType,
  old: { inputs?: Props; outputs?: Props; initErrors?: string[] } | undefined,
  r: { inputs: Props; ignoreChanges: string[]; replaceOnChanges: string[] },
  settings: KubeSettings,
  replace: boolean,
): KubePlan {
  const oldInputs = old ? (old.inputs ?? {}) : undefined;
  if (!oldInputs) return { op: "create", diffs: [], renamed: false, replacing: [] };
  const normal = (props: Props) => normalizeInputs(type, reveal(props) as Props);
  const state = parseCheckpointObject(reveal(old!.outputs ?? {}) as Props, oldInputs);
  const olds = pruned(state.live, normal(state.inputs));
  const news = normal(withPaths(r.inputs, oldInputs, r.ignoreChanges));
  const diffs = diffPaths(olds, news).filter((d) => !r.ignoreChanges.some((p) => under(d, p)));
  const renamed = diffs.some((d) => d === "metadata.name" || d === "metadata.namespace");
  const forceNew = forceNewPaths(type, reveal(r.inputs) as Props, settings);
  const ignored = r.ignoreChanges.map((p) => p.split("."));
  const detailed = changedPaths(olds, news, []).filter((p) => !ignored.some((i) => pathContains(i, p)));
  const provider: ProviderDiff = {
    changes: diffs.length > 0 ? "some" : "none",
    replaceKeys: diffs.filter((d) => forceNew.some((p) => under(d, p))),
    changedKeys: [...new Set(diffs.map((d) => d.split(".")[0]))],
    detailedDiff: Object.fromEntries(detailed.map((p) => [formatPropertyPath(p), false])),
    deleteBeforeReplace: false,
  };
  const { op, diff } = stepOf(provider, r.replaceOnChanges, old!.initErrors, replace);
  const replacing = op !== "replace" ? [] : replace ? ["id"] : replacingPaths(diff);
  return { op, diffs, renamed, replacing };
}

/**
 * The step of a resource with old state from its provider's diff (step_generator.go): a replacement
 * when `--replace` names it or a change replaces it, its `replaceOnChanges` applied; an update when
 * anything changed or the old state has initialization errors; same otherwise.
 */
function stepOf(
  provider: ProviderDiff,
  replaceOnChanges: string[],
  initErrors: string[] | undefined,
  replace: boolean,
): { op: StepOp; diff: ProviderDiff } {
  const failed = (initErrors?.length ?? 0) > 0;
  const diff = applyReplaceOnChanges(provider, replaceOnChanges, failed);
  if (replace) return { op: "replace", diff };
  if (diff.changes === "some") return { op: isReplacement(diff) ? "replace" : "update", diff };
  return { op: failed ? "update" : "same", diff };
}

/**
 * A dynamic resource's step from its provider's Diff (step_generator.go): the engine diffs the inputs
 * itself when the provider cannot tell (DIFF_UNKNOWN, a provider without `diff`), and only then can
 * `replaceOnChanges` name what changed, since the dynamic-provider host sends no changed keys; the
 * changed top-level inputs are shown, or the replacing ones on a replace; the old resource goes first
 * as the program says, else as the provider asks.
 */
export function dynamicPlan(
  old: { inputs?: Props; initErrors?: string[] },
  r: { inputs: Props; replaceOnChanges: string[]; deleteBeforeReplace?: boolean },
  answer: DiffResult,
  replace: boolean,
): { op: StepOp; diffs: string[]; deleteBeforeReplace: boolean } {
  const diffs = [
    ...new Set(
      diffPaths(withoutProvider(old.inputs ?? {}), withoutProvider(r.inputs)).map((d) => d.split(".")[0]),
    ),
  ];
  const provider: ProviderDiff = {
    ...(answer.changes === "unknown"
      ? engineDiff(old.inputs ?? {}, r.inputs)
      : { changes: answer.changes, changedKeys: [] }),
    replaceKeys: answer.replaces,
    deleteBeforeReplace: answer.deleteBeforeReplace,
  };
  const { op, diff } = stepOf(provider, r.replaceOnChanges, old.initErrors, replace);
  const replacing = op === "replace" ? replacingPaths(diff) : [];
  return {
    op,
    diffs: replacing.length > 0 ? replacing : diffs,
    deleteBeforeReplace: deletesBeforeReplace(r.deleteBeforeReplace, diff.deleteBeforeReplace),
  };
}
