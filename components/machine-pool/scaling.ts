import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  MACHINE_AUTOSCALER_API_VERSION,
  MachineAutoscalerManifest,
  machineAutoscalersForPool,
  PoolAutoscaling,
  requirePoolAutoscaling,
} from "../../builders/autoscaling";
import { HealthCheckOptions } from "../../builders/health-check";
import { MACHINE_SET_API_VERSION } from "../../builders/machineset";
import { contentHash, MachineAutoscalerReady } from "../../provider/dynamic";
import { ClusterFacts } from "../cluster/facts";
import { MACHINE_API_NAMESPACE } from "../../builders/machineset/naming";
import { manifestArgs, PATCH_FORCE, withAnnotations } from "../cluster/kube";
import { Adoption } from "../cluster/adoption";
import { field, KINDS } from "../../provider/waiting/kinds";
import { LabelSelector, selectorMatches } from "../../primitives/selectors";
import { Waiting } from "../cluster/wait";
import { within } from "../../builders/errors";
import { checked, inputPropertyError, naming } from "../errors";
import { healthCheckManifest } from "./health-check";
import { DeclaredMachineSets, MachinePoolArgs } from "./machine-sets";
import { child } from "../declared";

export interface PoolScaling {
  /** The pool's MachineAutoscalers, one per MachineSet (empty without `autoscaling`). */
  autoscalers: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /** An Output: adopted, it is declared once the cluster facts name it. */
  healthCheck?: pulumi.Output<k8s.apiextensions.CustomResource>;
  /** Waits until the autoscalers are accepted and every MachineSet has its minimum Ready. */
  ready?: pulumi.Output<MachineAutoscalerReady>;
}

export interface PoolScalingOptions {
  /** The component, as its errors name it (`InfraNodePool "infra"`). */
  of: string;
  /** The machine role of the pool's machines (`infra`, or `worker` for Windows machines). */
  machineRole: string;
  /** Names the health check together with the infrastructure ID, e.g. `infra` or `windows`. */
  role: pulumi.Input<string>;
  kubeOptions: pulumi.CustomResourceOptions;
  waiting?: Waiting;
  /**
   * Adopt the MachineAutoscalers and the MachineHealthCheck of the same names made by hand that the
   * cluster holds (adoption.ts): declared once their names are known, as adopted MachineSets are.
   */
  adoption?: Adoption;
}

/**
 * A pool's MachineAutoscalers and MachineHealthCheck. Both depend on the MachineSets, so Pulumi deletes
 * them first on destroy: no autoscaler is left pointing at a deleted MachineSet, and no health check
 * remediates machines while their set drains.
 */
export function declarePoolScaling(
  name: string,
  args: MachinePoolArgs,
  facts: pulumi.Output<ClusterFacts>,
  machineSets: DeclaredMachineSets,
  options: PoolScalingOptions,
): PoolScaling {
  const after = { ...options.kubeOptions, dependsOn: machineSets.resources };
  let autoscalers: pulumi.Output<k8s.apiextensions.CustomResource[]> = pulumi.output([]);
  let ready: pulumi.Output<MachineAutoscalerReady> | undefined;
  if (args.autoscaling !== undefined) {
    // Checked as soon as the bounds are known, before the cluster facts: a preview shows the mistake.
    const bounds = pulumi.all([args.autoscaling, machineSets.zones.given]).apply(([scaling, zones]) =>
      naming(options.of, () => {
        // No zones listed: one MachineSet without a zone (Azure), or zones yet to be looked up.
        const zoneCount = zones && zones.length > 0 ? zones.length : 1;
        checked(() =>
          within("autoscaling", () => requirePoolAutoscaling(scaling as PoolAutoscaling, zoneCount)),
        );
        return scaling as PoolAutoscaling;
      }),
    );
    const manifests = pulumi
      .all([machineSets.names, bounds])
      .apply(([names, scaling]) =>
        naming(options.of, () =>
          checked(() => within("autoscaling", () => machineAutoscalersForPool(names, scaling))),
        ),
      );
    const known = machineSets.zones.listed;
    // Named by the zone of its MachineSet, as the MachineSet is. Zones looked up or adopted without a
    // list were named by their position before: the alias keeps what a stack made then, unrenamed.
    const declare = (
      key: string,
      index: number,
      resourceArgs: k8s.apiextensions.CustomResourceArgs,
      adopted: pulumi.CustomResourceOptions = {},
    ) =>
      child(k8s.apiextensions.CustomResource, `${name}-${key}-autoscaler`, resourceArgs, {
        ...after,
        ...adopted,
        ...(known ? {} : { aliases: [{ name: `${name}-${index}-autoscaler` }] }),
      });
    const resourceArgs = (manifest: pulumi.Output<object>) =>
      manifestArgs(MACHINE_AUTOSCALER_API_VERSION, "MachineAutoscaler", manifest, ["metadata", "spec"]);
    // Each autoscaler is named after its MachineSet: adopting imports it by that name, known only then.
    const adopt = async (
      adoption: Adoption,
      kubeconfig: string | undefined,
      list: MachineAutoscalerManifest[],
      keys: string[],
    ) => {
      const objects = list.map((m) => ({
        kind: KINDS.machineAutoscaler,
        name: m.metadata.name,
        namespace: MACHINE_API_NAMESPACE,
      }));
      // One made by hand under another name already scales the MachineSet: a second would fight it
      // over the MachineSet's min/max annotations, which the machine-api sets from each.
      const existing = await adoption.objectsIn(kubeconfig, KINDS.machineAutoscaler, MACHINE_API_NAMESPACE);
      const rivals = list.flatMap((m) =>
        existing
          .filter(
            (o) =>
              o.metadata.name !== m.metadata.name &&
              field(o, "spec", "scaleTargetRef", "name") === m.spec.scaleTargetRef.name,
          )
          .map((o) => `MachineAutoscaler ${o.metadata.name} scales MachineSet ${m.spec.scaleTargetRef.name}`),
      );
      if (rivals.length > 0) {
        throw inputPropertyError(
          "autoscaling",
          `${rivals.join("; ")}, made by hand under another name than the pool gives its own (the MachineSet's): a second would fight it. Delete it (oc delete machineautoscaler <name> -n ${MACHINE_API_NAMESPACE}) and up creates the pool's`,
        );
      }
      const adopted = await adoption.options(kubeconfig, objects);
      return pulumi.all(
        list.map((manifest, i) => declare(keys[i], i, withAnnotations(manifest, PATCH_FORCE), adopted[i])),
      );
    };
    const adoption = options.adoption;
    autoscalers = adoption
      ? pulumi.output(
          pulumi
            .all([manifests, adoption.kubeconfig, machineSets.keys])
            .apply(([list, config, keys]) => adopt(adoption, config, list, keys)),
        )
      : known
        ? pulumi.all(known.map((zone, i) => declare(zone, i, resourceArgs(manifests.apply((m) => m[i])))))
        : pulumi
            .all([manifests, machineSets.keys])
            .apply(([list, keys]) =>
              pulumi.all(list.map((m, i) => declare(keys[i], i, resourceArgs(pulumi.output(m))))),
            );
    ready =
      options.waiting &&
      child(
        MachineAutoscalerReady,
        `${name}-autoscalers-ready`,
        {
          ...options.waiting.watching(autoscalers),
          autoscalers: manifests.apply((m) => m.map((a) => a.metadata.name)),
          contentHash: manifests.apply(contentHash),
        },
        options.waiting.options(autoscalers),
      );
  }
  let healthCheck: pulumi.Output<k8s.apiextensions.CustomResource> | undefined;
  if (args.healthCheck !== undefined && args.healthCheck !== false) {
    const settings = pulumi.output(args.healthCheck === true ? {} : args.healthCheck).apply((hc) =>
      naming(options.of, () => {
        // Checked before the cluster facts are known, so a preview shows the mistake.
        const given = (hc as HealthCheckOptions).name ?? "check";
        healthCheckManifest(hc as HealthCheckOptions, given, "check", options.machineRole, ["check"]);
        return hc as HealthCheckOptions;
      }),
    );
    const manifest = pulumi
      .all([facts, machineSets.names, options.role, settings])
      .apply(([f, names, role, hc]) =>
        naming(options.of, () =>
          healthCheckManifest(
            hc,
            hc.name ?? `${f.infrastructureId}-${role}`,
            f.infrastructureId,
            options.machineRole,
            names,
          ),
        ),
      );
    const declare = (
      args: k8s.apiextensions.CustomResourceArgs,
      adopted: pulumi.CustomResourceOptions = {},
    ) => child(k8s.apiextensions.CustomResource, `${name}-health-check`, args, { ...after, ...adopted });
    // Named after the infrastructure ID: adopting imports it by that name, known with the cluster facts.
    const adoption = options.adoption;
    const check = adoption
      ? pulumi
          .all([manifest, adoption.kubeconfig, machineSets.machineLabels])
          .apply(async ([m, config, labels]) => {
            // The machine-api remediates for each MachineHealthCheck whose selector takes a machine
            // (machine-api-operator machinehealthcheck_controller.go, getTargetsFromMHC): one made by hand
            // under another name over these machines would remediate them beside the pool's.
            const existing = await adoption.objectsIn(
              config,
              KINDS.machineHealthCheck,
              MACHINE_API_NAMESPACE,
            );
            const rivals = existing.filter(
              (o) =>
                o.metadata.name !== m.metadata.name &&
                labels.some((l) => selectorMatches(field<LabelSelector>(o, "spec", "selector"), l)),
            );
            if (rivals.length > 0) {
              const named = rivals.map((o) => o.metadata.name).join(", ");
              throw inputPropertyError(
                "healthCheck",
                `MachineHealthCheck ${named}, made by hand, already watches this pool's machines: a second would remediate them too. Give its name as healthCheck.name to adopt it, or delete it`,
              );
            }
            const object = {
              kind: KINDS.machineHealthCheck,
              name: m.metadata.name,
              namespace: MACHINE_API_NAMESPACE,
            };
            const [adopted] = await adoption.options(config, [object]);
            return { manifest: withAnnotations(m, PATCH_FORCE), adopted };
          })
          .apply(({ manifest: m, adopted }) => declare(m, adopted))
      : declare(manifestArgs(MACHINE_SET_API_VERSION, "MachineHealthCheck", manifest, ["metadata", "spec"]));
    healthCheck = check;
  }
  return { autoscalers, healthCheck, ready };
}
