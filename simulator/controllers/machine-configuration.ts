/**
 * The operator's part of `MachineConfiguration/cluster` that decides what nodes do for a change
 * (openshift/machine-config-operator pkg/operator/sync.go, syncMachineConfiguration): it writes
 * `status.nodeDisruptionPolicyStatus.clusterPolicies`, the spec's `nodeDisruptionPolicy` merged with
 * the cluster defaults (pkg/apihelpers/apihelpers.go MergeClusterPolicies, the one home of which is
 * builders/rollout-impact/rules.ts), and `status.observedGeneration`. The daemon acts on that status
 * only once it observed the current generation (pkg/daemon/update.go
 * calculatePostConfigChangeNodeDisruptionAction), so a policy applied just before a MachineConfig is
 * the one its nodes use. The boot image part of the same sync is boot-images.ts.
 */
import { field, jsonEqual } from "../../primitives/objects";
import { mergeClusterPolicies, NodeDisruptionPolicy } from "../../builders/rollout-impact/rules";
import { ControllerContext, StopFn } from "./context";
import { WorkQueue } from "./workqueue";
import { K, isKind, keyOf } from "./util";

export function startMachineConfigurationSync(ctx: ControllerContext): StopFn {
  const operator = ctx.writer("machine-config-operator");
  const key = keyOf(K.machineConfiguration, "cluster");
  const queue = new WorkQueue("machine-configuration", ctx.clock, () => sync());

  function sync(): void {
    const configuration = ctx.store.get(key);
    if (!configuration) return;
    const policyStatus = {
      clusterPolicies: mergeClusterPolicies(
        field<NodeDisruptionPolicy>(configuration, "spec", "nodeDisruptionPolicy"),
      ),
    };
    const generation = configuration.metadata.generation ?? 1;
    if (
      jsonEqual(field(configuration, "status", "nodeDisruptionPolicyStatus"), policyStatus) &&
      field(configuration, "status", "observedGeneration") === generation
    )
      return;
    operator.mutate(
      key,
      (o) => {
        o.status = {
          ...(o.status as object),
          nodeDisruptionPolicyStatus: policyStatus,
          observedGeneration: o.metadata.generation ?? 1,
        };
      },
      { subresource: "status" },
    );
  }

  const unsubscribe = ctx.store.subscribe(({ object }) => {
    if (isKind(object, K.machineConfiguration)) queue.add("cluster");
  });
  queue.add("cluster");
  return unsubscribe;
}
