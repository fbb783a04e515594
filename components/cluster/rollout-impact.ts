/**
 * At preview, what applying one node configuration object does to its pool's nodes, from what the cluster
 * runs now (read with the kubeconfig) against the cluster with the object applied: one log line on the
 * component (`pool infra: new render; 3 nodes drain and reboot, ...`) and the `rolloutImpact` output.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  impactLine,
  ObjectLike,
  PoolImpact,
  poolConfigsFrom,
  rolloutImpact,
} from "../../builders/rollout-impact";
import { createApiClient } from "../../provider/waiting/api";
import { KINDS, KubeObject } from "../../provider/waiting/kinds";

/** The impact of applying `object` (a MachineConfig, KubeletConfig or ContainerRuntimeConfig) to `pool`. */
export async function clusterRolloutImpact(
  kubeconfig: string,
  pool: string,
  object: ObjectLike,
): Promise<PoolImpact | undefined> {
  const client = createApiClient(kubeconfig);
  const mcp = await client.get(KINDS.pool, pool);
  if (!mcp) return undefined;
  const kinds = [KINDS.machineConfig, KINDS.kubeletConfig, KINDS.containerRuntimeConfig];
  const [lists, mco] = await Promise.all([
    Promise.all(kinds.map((k) => client.list(k, {}))),
    client.get(KINDS.machineConfiguration, "cluster"),
  ]);
  const withKind = (items: KubeObject[], kind: string) => items.map((o) => ({ ...o, kind }) as ObjectLike);
  const now = lists.flatMap((l, i) => withKind(l.items, kinds[i].kind));
  const name = object.metadata?.name;
  const applied = [...now.filter((o) => !(o.kind === object.kind && o.metadata?.name === name)), object];
  const spec = (mcp.spec ?? {}) as { maxUnavailable?: number | string; paused?: boolean };
  return rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, now, mcp),
    after: poolConfigsFrom(pool, applied, mcp),
    machineCount: Number((mcp.status as { machineCount?: number } | undefined)?.machineCount ?? 0),
    maxUnavailable: spec.maxUnavailable,
    paused: spec.paused === true,
    nodeDisruptionPolicy: (mco?.spec as { nodeDisruptionPolicy?: never } | undefined)?.nodeDisruptionPolicy,
  });
}

/**
 * Logs and returns the impact at preview; undefined on `up` (the object may already be applied) and
 * without a kubeconfig. A cluster that cannot be read gives a warning, never a failed preview.
 */
export function previewRolloutImpact(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Output<string>,
  object: pulumi.Output<ObjectLike>,
): pulumi.Output<PoolImpact | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi
    .all([pulumi.unsecret(kubeconfig), pool, object])
    .apply(async ([config, poolName, manifest]) => {
      try {
        const impact = await clusterRolloutImpact(config, poolName, manifest);
        pulumi.log.info(
          impact
            ? impactLine(impact)
            : `pool ${poolName}: not in the cluster yet: its nodes boot with its first render`,
          parent,
        );
        return impact;
      } catch (e) {
        pulumi.log.warn(`pool ${poolName}: rollout impact unknown: ${(e as Error).message}`, parent);
        return undefined;
      }
    });
}
