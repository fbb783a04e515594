/**
 * The MCO render controller: for each pool, the MachineConfigs its `machineConfigSelector` matches are
 * validated, merged in the MCO's order (primitives/render-order.ts) into `rendered-<pool>-<hash>`, and published in the pool's
 * `spec.configuration` (name and source). Failures set `RenderDegraded` and leave the pool on its
 * previous rendered config.
 */
import { byName, field, jsonEqual, labelsOf, obj } from "../../primitives/objects";
import { selectedByPool } from "../../primitives/render-order";
import { LabelSelector, selectorIsEmpty, selectorMatches, selectorString } from "../../primitives/selectors";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import {
  CONTROLLER_VERSION,
  GENERATED_BY_ANNOTATION,
  RELEASE_VERSION,
  RELEASE_VERSION_ANNOTATION,
  mergeMachineConfigs,
  reconcileProblem,
  renderedName,
  specOf,
  validateMachineConfig,
} from "./machineconfig";
import { WorkQueue } from "./workqueue";
import { Condition, K, controllerRef, isKind, keyOf, recordEvent, setCondition } from "./util";

export function isRendered(mc: KubeObject): boolean {
  return (mc.metadata.ownerReferences ?? []).some((r) => r.kind === "MachineConfigPool");
}

/** KubeletConfigs and ContainerRuntimeConfigs that select the pool and have not caught up yet. */
function pendingSubControllers(ctx: ControllerContext, pool: KubeObject): boolean {
  return [K.kubeletConfig, K.containerRuntimeConfig].some((kind) =>
    ctx.store.list(kind.apiVersion, kind.kind).some((cfg) => {
      const sel = field<LabelSelector>(cfg, "spec", "machineConfigPoolSelector");
      if (selectorIsEmpty(sel) || !selectorMatches(sel, labelsOf(pool)) || cfg.metadata.deletionTimestamp)
        return false;
      return (field<number>(cfg, "status", "observedGeneration") ?? 0) < (cfg.metadata.generation ?? 1);
    }),
  );
}

export function startRenderController(ctx: ControllerContext): StopFn {
  const { clock, delays } = ctx;
  const store = ctx.writer("machine-config-controller");
  const queue = new WorkQueue("render-controller", clock, sync);
  const seenGeneration = new Map<string, number>();
  /** Pool generations already warned about, so a bad selector is one Event, not one per sync. */
  const warned = new Set<string>();

  function setRenderDegraded(poolName: string, message: string | undefined): void {
    store.mutate(
      keyOf(K.pool, poolName),
      (p) => {
        const status = obj(p.status);
        const conditions = (status.conditions as Condition[] | undefined) ?? [];
        status.conditions = setCondition(
          conditions,
          message === undefined
            ? { type: "RenderDegraded", status: "False", reason: "", message: "" }
            : {
                type: "RenderDegraded",
                status: "True",
                reason: "",
                message: `Failed to render configuration for pool ${poolName}: ${message}`,
              },
          clock.now(),
        );
        p.status = status;
      },
      { subresource: "status" },
    );
  }

  function sync(poolName: string): void {
    const pool = store.get(keyOf(K.pool, poolName));
    if (!pool || pool.metadata.deletionTimestamp) return;
    const selector = field<LabelSelector>(pool, "spec", "machineConfigSelector");
    if (selectorIsEmpty(selector)) {
      const warning = `${pool.metadata.uid}/${pool.metadata.generation}`;
      if (warned.has(warning)) return;
      warned.add(warning);
      recordEvent(
        store,
        clock.now(),
        pool,
        "Warning",
        "SelectingAll",
        "This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.",
        "machineconfigcontroller-rendercontroller",
      );
      return;
    }
    // Generated configs first: rendering before KubeletConfig/ContainerRuntimeConfig caught up would roll twice.
    if (pendingSubControllers(ctx, pool)) return;
    const configs = selectedByPool(
      selector,
      store
        .list(K.machineConfig.apiVersion, K.machineConfig.kind)
        .filter((mc) => !mc.metadata.deletionTimestamp && !isRendered(mc)),
    ).sort(byName);
    if (configs.length === 0) {
      setRenderDegraded(poolName, `no MachineConfigs found matching selector ${selectorString(selector)}`);
      return;
    }
    for (const mc of configs) {
      const problem = validateMachineConfig(specOf(mc));
      if (problem) {
        setRenderDegraded(poolName, `could not generate rendered MachineConfig: ${problem}`);
        return;
      }
    }
    const merged = mergeMachineConfigs(configs);
    const name = renderedName(poolName, merged);
    const currentName = field<string>(pool, "spec", "configuration", "name") ?? "";
    const current = currentName ? store.get(keyOf(K.machineConfig, currentName)) : undefined;
    if (current && currentName !== name) {
      const problem = reconcileProblem(specOf(current), merged);
      if (problem) {
        const culprit = configs.find((mc) => reconcileProblem(specOf(current), specOf(mc)));
        const detail = culprit
          ? `reconciliation failed between current config ${JSON.stringify(currentName)} and base config ${JSON.stringify(culprit.metadata.name)}: ${reconcileProblem(specOf(current), specOf(culprit))}`
          : `render reconciliation error: new machineconfig ${JSON.stringify(currentName)} is not reconcilable against ${JSON.stringify(name)}: ${problem}`;
        setRenderDegraded(poolName, `could not generate rendered MachineConfig: ${detail}`);
        return;
      }
    }
    if (!store.get(keyOf(K.machineConfig, name))) {
      store.create({
        apiVersion: K.machineConfig.apiVersion,
        kind: K.machineConfig.kind,
        metadata: {
          name,
          annotations: {
            [GENERATED_BY_ANNOTATION]: CONTROLLER_VERSION,
            [RELEASE_VERSION_ANNOTATION]: RELEASE_VERSION,
          },
          ownerReferences: [controllerRef(pool)],
        },
        spec: merged,
      });
      recordEvent(
        store,
        clock.now(),
        pool,
        "Normal",
        "RenderedConfigGenerated",
        `${name} successfully generated (release version: ${RELEASE_VERSION}, controller version: ${CONTROLLER_VERSION})`,
        "machineconfigcontroller-rendercontroller",
      );
    }
    const source = configs.map((c) => ({
      apiVersion: K.machineConfig.apiVersion,
      kind: K.machineConfig.kind,
      name: c.metadata.name,
    }));
    const configuration = { name, source };
    if (!jsonEqual(field(pool, "spec", "configuration"), configuration)) {
      store.mutate(keyOf(K.pool, poolName), (p) => {
        p.spec = { ...obj(p.spec), configuration };
      });
    }
    setRenderDegraded(poolName, undefined);
  }

  const renderAllLater = () => {
    for (const p of store.list(K.pool.apiVersion, K.pool.kind))
      queue.addAfter(p.metadata.name, delays.render);
  };
  const unsubscribe = store.subscribe(({ type, object }) => {
    if (isKind(object, K.machineConfig)) {
      if (!isRendered(object)) renderAllLater();
      // A deleted rendered config is regenerated for the pool that owns it.
      else if (type === "DELETED") {
        for (const ref of object.metadata.ownerReferences ?? []) queue.add(ref.name);
      }
    } else if (isKind(object, K.pool)) {
      const generation = object.metadata.generation ?? 0;
      if (type === "DELETED") {
        seenGeneration.delete(object.metadata.name);
      } else if (seenGeneration.get(object.metadata.name) !== generation) {
        seenGeneration.set(object.metadata.name, generation);
        queue.addAfter(object.metadata.name, delays.render);
      }
    } else if (isKind(object, K.kubeletConfig) || isKind(object, K.containerRuntimeConfig)) {
      renderAllLater();
    }
  });
  for (const p of store.list(K.pool.apiVersion, K.pool.kind)) {
    seenGeneration.set(p.metadata.name, p.metadata.generation ?? 0);
    queue.add(p.metadata.name);
  }
  return unsubscribe;
}
