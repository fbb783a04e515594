/**
 * Dynamic resources' steps carried out by the SDK's dynamic-provider host, as the engine drives a
 * provider plugin (step.go): Check, Diff, then Create, Update or a replacement (its old half deleted
 * first when the provider or the program asks, else after the deployment), and Delete.
 */
import { markSecret, secretKeys } from "../secrets";
import type { CheckpointResource } from "./checkpoint";
import type { StepContext } from "./step-context";
import type { Registration } from "./monitor";
import { dynamicPlan, replaceRequested, StepOp } from "./plan";
import { grpcMessage, initFailure, Props } from "./rpc";

export async function dynamicStep(d: StepContext, r: Registration): Promise<{ id: string; outputs: Props }> {
  const old = d.priorOf(r);
  const host = await d.dynamicHost();
  const checked = await host.check(r.urn, old?.inputs ?? {}, r.inputs).catch((e) => {
    throw d.fail(r, old ? "update" : "create", new Error(grpcMessage(e)));
  });
  if (checked.failures.length > 0) {
    throw d.fail(
      r,
      old ? "update" : "create",
      new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")),
    );
  }
  const inputs = markSecret(checked.inputs, secretKeys(r.inputs));
  let op: StepOp = "create";
  let diffs: string[] = [];
  let deleteBeforeReplace = false;
  if (old) {
    const diff = await host.diff(r.urn, old.id!, old.outputs ?? {}, inputs).catch((e) => {
      throw d.fail(r, "update", new Error(grpcMessage(e)));
    });
    try {
      const requested = replaceRequested(r.urn, d.options.replace);
      ({ op, diffs, deleteBeforeReplace } = dynamicPlan(old, { ...r, inputs }, diff, requested));
    } catch (error) {
      throw d.fail(r, "update", error);
    }
  }
  d.step(op, r, op === "same" ? [] : diffs);
  if (d.dryRun || op === "same") {
    const outputs = op === "same" ? (old!.outputs ?? {}) : inputs;
    const id = op === "same" ? old!.id! : "";
    return { id, outputs: d.record(r, id, inputs, outputs) };
  }
  return d.carryOut(
    op,
    r,
    async () => {
      try {
        if (op === "update") {
          return { id: old!.id!, outputs: await host.update(r.urn, old!.id!, old!.outputs ?? {}, inputs) };
        }
        if (op === "replace" && deleteBeforeReplace)
          await host.delete(old!.urn, old!.id!, old!.outputs ?? {});
        const created = await host.create(r.urn, inputs);
        if (op === "replace" && !deleteBeforeReplace) d.replaced.push(old!);
        return created;
      } catch (error) {
        keepInitFailure(d, r, inputs, error);
        throw new Error(grpcMessage(error), { cause: error });
      }
    },
    inputs,
  );
}

/** A resource the provider made but could not initialize (an error carrying its id) stays in the state. */
function keepInitFailure(d: StepContext, r: Registration, inputs: Props, error: unknown): void {
  const failure = initFailure(error);
  if (failure) d.recordInitFailure(r, failure.id, inputs, failure.properties, failure.reasons);
}

export async function deleteDynamic(d: StepContext, resource: CheckpointResource): Promise<void> {
  const host = await d.dynamicHost();
  await host.delete(resource.urn, resource.id!, resource.outputs ?? {}).catch((e) => {
    throw new Error(grpcMessage(e));
  });
}
