import * as pulumi from "@pulumi/pulumi";
import type { KubeObject, ResourceKind } from "../../provider/waiting/kinds";
import { KINDS } from "../../provider/waiting/kinds";
import { inputPropertyError } from "../errors";
import { adoptOption } from "./kube";
import { clusterOfThisRun } from "./preview-run";
import { clusterAccess, SharedArgs, Waiting } from "./wait";

/** An object a component declares under a name that may exist already. */
export interface AdoptableObject {
  kind: ResourceKind;
  name: string;
  namespace?: string;
}

/**
 * A component's `adopt: true`, object by object: Pulumi's `import` for each object the cluster holds
 * and nothing for one it does not, which the first `up` then creates (a hand-made pool often lacks a
 * zone's MachineSet, its autoscalers or its health check). Pulumi takes `import` as a plain option at
 * registration (the engine's step generator makes an ImportStep of a goal with an ID and no old state,
 * pkg/resource/deploy/step_generator.go), so the objects are declared once the cluster has said which
 * exist; the preview names each one created instead of imported.
 */
export interface Adoption {
  /** The connection the cluster is read with: the Output the objects are declared in must include it. */
  kubeconfig: pulumi.Output<string | undefined>;
  /** Each object's options, in order, once `kubeconfig` is resolved. */
  options(
    kubeconfig: string | undefined,
    objects: AdoptableObject[],
  ): Promise<pulumi.CustomResourceOptions[]>;
  /** An object as the cluster holds it; undefined when it holds none or does not answer. */
  read(kubeconfig: string | undefined, object: AdoptableObject): Promise<KubeObject | undefined>;
  /** The objects of a kind in a namespace; none when the cluster does not answer. */
  objectsIn(kubeconfig: string | undefined, kind: ResourceKind, namespace: string): Promise<KubeObject[]>;
  /**
   * Fails, naming each one and its way out, when the cluster lacks objects that are imported whole or
   * not at all (creating one beside a hand-made setup could break it); passes when the cluster does
   * not answer, whose imports then say why.
   */
  requireHeld(
    kubeconfig: string | undefined,
    objects: Array<AdoptableObject & { wayOut: string }>,
  ): Promise<void>;
}

/**
 * The adoption of a component with `adopt: true`, reading the cluster as its waiters do (with `wait:
 * false`, as its uninstall guards do); undefined without `adopt`.
 */
export function adoption(
  args: SharedArgs & { adopt?: boolean },
  waits: Waiting | undefined,
  parent: pulumi.Resource,
): Adoption | undefined {
  if (!args.adopt) return undefined;
  const access = waits ?? (args.wait === false ? clusterAccess(args, parent) : undefined);
  return {
    kubeconfig: access ? pulumi.unsecret(access.kubeconfig) : pulumi.output(undefined),
    options: async (kubeconfig, objects) => {
      const held = await heldBy(kubeconfig, objects);
      return objects.map((object, i) => {
        // Without an answer every object is imported: the import's own read then says what is wrong.
        if (held === undefined || held[i]) return adoptOption(true, object.name, object.namespace);
        if (pulumi.runtime.isDryRun()) {
          const where = object.namespace ? `${object.namespace}/${object.name}` : object.name;
          pulumi.log.info(`adopt: ${object.kind.kind} ${where} is not in the cluster: created`, parent);
        }
        return {};
      });
    },
    read: async (kubeconfig, object) => {
      if (kubeconfig === undefined) return undefined;
      const cluster = clusterOfThisRun(kubeconfig);
      if ((await cluster.unreachableBecause()) !== undefined) return undefined;
      return cluster.object(object.kind, object.name, object.namespace).catch(() => undefined);
    },
    objectsIn: async (kubeconfig, kind, namespace) => {
      if (kubeconfig === undefined) return [];
      const cluster = clusterOfThisRun(kubeconfig);
      if ((await cluster.unreachableBecause()) !== undefined) return [];
      return cluster.objectsIn(kind, namespace).catch(() => []);
    },
    requireHeld: async (kubeconfig, objects) => {
      const held = await heldBy(kubeconfig, objects);
      const missing = objects.filter((_, i) => held !== undefined && !held[i]);
      if (missing.length === 0) return;
      const named = missing.map(
        (o) => `${o.kind.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name} (${o.wayOut})`,
      );
      throw inputPropertyError("adopt", `the cluster has no ${named.join(", no ")} to adopt`);
    },
  };
}

/**
 * Whether the cluster holds each object; undefined when it does not answer. MachineConfigPools and
 * MachineSets come from the lists the preview's rollout reads share; other kinds are read by name.
 */
async function heldBy(
  kubeconfig: string | undefined,
  objects: AdoptableObject[],
): Promise<boolean[] | undefined> {
  if (kubeconfig === undefined) return undefined;
  const cluster = clusterOfThisRun(kubeconfig);
  if ((await cluster.unreachableBecause()) !== undefined) return undefined;
  const named = (list: KubeObject[], object: AdoptableObject) =>
    list.some((o) => o.metadata.name === object.name && o.metadata.namespace === object.namespace);
  return Promise.all(
    objects.map(async (object) => {
      if (object.kind === KINDS.pool) return (await cluster.pool(object.name)) !== undefined;
      if (object.kind === KINDS.machineSet) return named(await cluster.machineSets(), object);
      return (await cluster.object(object.kind, object.name, object.namespace)) !== undefined;
    }),
  ).catch(() => undefined);
}
