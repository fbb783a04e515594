/**
 * At preview, what a change does to a pool's nodes, from what the cluster runs now (read with the
 * kubeconfig): for a node configuration object, the cluster with the object applied; for a pool's own
 * settings, the rollout the pool has pending, which those settings start, hold or pace. One log line
 * on the component (`pool infra: new render; 3 nodes drain and reboot, ...`) and the `rolloutImpact`
 * output.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  impactLine,
  ObjectLike,
  PoolConfigs,
  PoolImpact,
  poolConfigsFrom,
  rolloutImpact,
} from "../../builders/rollout-impact";
import { ApiClient, createApiClient } from "../../provider/waiting/api";
import { KINDS, KubeObject } from "../../provider/waiting/kinds";

/** The settings of a MachineConfigPool that pace or hold its rollouts. */
export interface PoolSettings {
  maxUnavailable?: number | string;
  paused?: boolean;
}

interface PoolState {
  mcp: KubeObject;
  spec: PoolSettings & { configuration?: { name?: string } };
  status: { machineCount?: number; updatedMachineCount?: number; configuration?: { name?: string } };
  nodeDisruptionPolicy: never;
}

async function readPool(client: ApiClient, pool: string): Promise<PoolState | undefined> {
  const [mcp, mco] = await Promise.all([
    client.get(KINDS.pool, pool),
    client.get(KINDS.machineConfiguration, "cluster"),
  ]);
  if (!mcp) return undefined;
  return {
    mcp,
    spec: (mcp.spec ?? {}) as PoolState["spec"],
    status: (mcp.status ?? {}) as PoolState["status"],
    nodeDisruptionPolicy: (mco?.spec as { nodeDisruptionPolicy?: never } | undefined)
      ?.nodeDisruptionPolicy as never,
  };
}

/** The impact of applying `object` (a MachineConfig, KubeletConfig or ContainerRuntimeConfig) to `pool`. */
export async function clusterRolloutImpact(
  kubeconfig: string,
  pool: string,
  object: ObjectLike,
): Promise<PoolImpact | undefined> {
  const client = createApiClient(kubeconfig);
  const state = await readPool(client, pool);
  if (!state) return undefined;
  const kinds = [KINDS.machineConfig, KINDS.kubeletConfig, KINDS.containerRuntimeConfig];
  const lists = await Promise.all(kinds.map((k) => client.list(k, {})));
  const withKind = (items: KubeObject[], kind: string) => items.map((o) => ({ ...o, kind }) as ObjectLike);
  const now = lists.flatMap((l, i) => withKind(l.items, kinds[i].kind));
  const name = object.metadata?.name;
  const applied = [...now.filter((o) => !(o.kind === object.kind && o.metadata?.name === name)), object];
  return rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, now, state.mcp),
    after: poolConfigsFrom(pool, applied, state.mcp),
    machineCount: Number(state.status.machineCount ?? 0),
    maxUnavailable: state.spec.maxUnavailable,
    paused: state.spec.paused === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  });
}

/**
 * The impact of a pool's own settings. They render nothing (pkg/controller/render reads only the
 * pool's selectors), so their nodes move only for a rollout the pool has pending: the nodes not yet
 * updated, from the config the pool last completed (`status.configuration`) to its target
 * (`spec.configuration`). The node controller updates `maxUnavailable` of them at a time and none
 * while the pool is paused, so declaring those settings paces, holds or starts that rollout.
 */
export async function clusterPoolImpact(
  kubeconfig: string,
  pool: string,
  settings: PoolSettings,
): Promise<PoolImpact | undefined> {
  const client = createApiClient(kubeconfig);
  const state = await readPool(client, pool);
  if (!state) return undefined;
  const machineCount = Number(state.status.machineCount ?? 0);
  const waiting = machineCount - Number(state.status.updatedMachineCount ?? machineCount);
  const target = state.spec.configuration?.name;
  const current = state.status.configuration?.name;
  const pending = waiting > 0 && target !== undefined && current !== undefined && target !== current;
  const rendered = async (name: string | undefined): Promise<PoolConfigs> => {
    const mc = name ? await client.get(KINDS.machineConfig, name) : undefined;
    return {
      machineConfigs: mc ? [mc as unknown as PoolConfigs["machineConfigs"][number]] : [],
      kubeletConfigs: [],
      containerRuntimeConfigs: [],
    };
  };
  const [before, after] = pending
    ? await Promise.all([rendered(current), rendered(target)])
    : [{ machineConfigs: [], kubeletConfigs: [], containerRuntimeConfigs: [] }, undefined];
  const impact = rolloutImpact({
    pool,
    before,
    after: after ?? before,
    machineCount: pending ? waiting : machineCount,
    maxUnavailable: settings.maxUnavailable,
    paused: settings.paused === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  });
  return pending ? { ...impact, pending: true } : impact;
}

/**
 * Logs and returns the impact at preview; undefined on `up` (the change may already be applied) and
 * without a kubeconfig. A cluster that cannot be read gives a warning, never a failed preview.
 */
function previewImpact<T>(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Input<string>,
  change: pulumi.Output<T>,
  impactOf: (kubeconfig: string, pool: string, change: T) => Promise<PoolImpact | undefined>,
): pulumi.Output<PoolImpact | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi
    .all([pulumi.unsecret(kubeconfig), pool, change])
    .apply(async ([config, poolName, declared]) => {
      try {
        const impact = await impactOf(config, poolName, declared as T);
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

/** At preview, the impact of applying a node configuration object to its pool. */
export function previewRolloutImpact(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Output<string>,
  object: pulumi.Output<ObjectLike>,
): pulumi.Output<PoolImpact | undefined> {
  return previewImpact(parent, kubeconfig, pool, object, clusterRolloutImpact);
}

/** At preview, the impact of a pool's declared `maxUnavailable` and `paused` (from its manifest). */
export function previewPoolImpact(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Input<string>,
  manifest: pulumi.Output<ObjectLike>,
): pulumi.Output<PoolImpact | undefined> {
  const settings = manifest.apply((m: { spec?: PoolSettings }) => ({
    maxUnavailable: m.spec?.maxUnavailable,
    paused: m.spec?.paused,
  }));
  return previewImpact(parent, kubeconfig, pool, settings, clusterPoolImpact);
}
