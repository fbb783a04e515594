/**
 * The machine-config-daemon on every Linux node, as one controller keyed by node: when the controller
 * sets `desiredConfig`, it reports Working, cordons, drains, writes the files, reboots unless the change
 * is reboot-less, uncordons and reports Done with `currentConfig` = `desiredConfig`. Failures and
 * injected faults turn the node Degraded with a reason, as the MCD reports them.
 */
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { cordon } from "./machine-api";
import { nodeImpact, specOf, writeProblem } from "./machineconfig";
import {
  CONTROL_PLANE_TOPOLOGY,
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  DESIRED_DRAIN,
  LAST_APPLIED_DRAIN,
  MCD_REASON,
  MCD_STATE,
  isWindowsNode,
  poolTarget,
  primaryPool,
} from "./mco-pools";
import { Stepper, WorkQueue } from "./workqueue";
import { Condition, K, annotationsOf, isKind, keyOf, obj, timestamp } from "./util";

type Stage = "start" | "drain" | "apply" | "reboot" | "finish";

export function startMachineConfigDaemon(ctx: ControllerContext): StopFn {
  const { store, clock, delays, faults } = ctx;
  const queue = new WorkQueue("machine-config-daemon", clock, sync);
  const steps = new Stepper(queue, clock);
  const progress = new Map<string, { target: string; stage: Stage }>();
  /** The desired config a node failed to apply; it stays Degraded until the target changes. */
  const failed = new Map<string, string>();

  const annotate = (name: string, values: Record<string, string>, cordoned?: boolean) =>
    store.mutate(keyOf(K.node, name), (n) => {
      n.metadata.annotations = { ...(n.metadata.annotations ?? {}), ...values };
      if (cordoned !== undefined) cordon(n, cordoned, clock.now());
    });

  const setReady = (name: string, ready: boolean) =>
    store.mutate(
      keyOf(K.node, name),
      (n) => {
        const status = obj(n.status);
        const ts = timestamp(clock.now());
        status.conditions = ((status.conditions as Condition[] | undefined) ?? []).map((c) =>
          c.type !== "Ready"
            ? c
            : ready
              ? {
                  ...c,
                  status: "True",
                  reason: "KubeletReady",
                  message: "kubelet is posting ready status",
                  lastHeartbeatTime: ts,
                  lastTransitionTime: ts,
                }
              : {
                  ...c,
                  status: "Unknown",
                  reason: "NodeStatusUnknown",
                  message: "Kubelet stopped posting node status.",
                  lastHeartbeatTime: ts,
                  lastTransitionTime: ts,
                },
        );
        n.status = status;
      },
      { subresource: "status" },
    );

  const mcSpec = (name: string | undefined) => {
    const mc = name ? store.get(keyOf(K.machineConfig, name)) : undefined;
    return mc && specOf(mc);
  };

  function degrade(
    name: string,
    reason: string,
    extra: Record<string, string> = {},
    cordoned?: boolean,
  ): void {
    annotate(name, { [MCD_STATE]: "Degraded", [MCD_REASON]: reason, ...extra }, cordoned);
  }

  function sync(name: string): void {
    const node = store.get(keyOf(K.node, name));
    if (!node) {
      progress.delete(name);
      failed.delete(name);
      steps.forget(name);
      return;
    }
    if (isWindowsNode(node)) return;
    const a = annotationsOf(node);
    if (!a[CURRENT_CONFIG]) return firstBoot(node);
    const fault = faults.nodeFault(name);
    if (fault) {
      // A degraded daemon stops updating; drift is reported until the file is fixed.
      if (a[MCD_STATE] !== "Degraded" || a[MCD_REASON] !== fault.reason) degrade(name, fault.reason);
      return;
    }
    const current = a[CURRENT_CONFIG];
    const desired = a[DESIRED_CONFIG] ?? current;
    if (desired === current) {
      progress.delete(name);
      failed.delete(name);
      // Recovering from a cleared fault or a rolled-back target: report Done and undo our own cordon.
      const cordonedByUs = a[DESIRED_DRAIN]?.startsWith("drain-") === true;
      if (a[MCD_STATE] !== "Done" || (a[MCD_REASON] ?? "") !== "" || cordonedByUs) {
        const drain: Record<string, string> = cordonedByUs
          ? { [DESIRED_DRAIN]: `uncordon-${current}`, [LAST_APPLIED_DRAIN]: `uncordon-${current}` }
          : {};
        annotate(name, { [MCD_STATE]: "Done", [MCD_REASON]: "", ...drain }, cordonedByUs ? false : undefined);
      }
      return;
    }
    if (failed.get(name) === desired) return;
    const target = mcSpec(desired);
    if (!target) {
      degrade(
        name,
        `failed to get desired config: machineconfigs.machineconfiguration.openshift.io ${JSON.stringify(desired)} not found`,
      );
      return;
    }
    let p = progress.get(name);
    if (!p || p.target !== desired) {
      p = { target: desired, stage: "start" };
      progress.set(name, p);
    }
    const impact = nodeImpact(mcSpec(current), target);
    for (;;) {
      switch (p.stage) {
        case "start":
          annotate(
            name,
            { [MCD_STATE]: "Working", [MCD_REASON]: "", [DESIRED_DRAIN]: `drain-${desired}` },
            true,
          );
          p.stage = "drain";
          break;
        case "drain": {
          if (!steps.ready(name, `${desired}/drain`, delays.drain)) return;
          annotate(name, { [LAST_APPLIED_DRAIN]: `drain-${desired}` });
          const problem = impact.changedFiles
            .filter((f) => (target.config?.storage?.files ?? []).some((x) => x.path === f))
            .map(writeProblem)
            .find((x) => x !== undefined);
          if (problem) {
            // The daemon rolls its partial writes back, uncordons and reports why it is stuck.
            failed.set(name, desired);
            progress.delete(name);
            degrade(
              name,
              problem,
              { [DESIRED_DRAIN]: `uncordon-${desired}`, [LAST_APPLIED_DRAIN]: `uncordon-${desired}` },
              false,
            );
            return;
          }
          p.stage = "apply";
          break;
        }
        case "apply":
          if (!steps.ready(name, `${desired}/apply`, delays.apply)) return;
          if (impact.reboot) {
            setReady(name, false);
            p.stage = "reboot";
          } else {
            p.stage = "finish";
          }
          break;
        case "reboot":
          if (!steps.ready(name, `${desired}/reboot`, delays.reboot)) return;
          setReady(name, true);
          p.stage = "finish";
          break;
        case "finish":
          progress.delete(name);
          annotate(
            name,
            {
              [CURRENT_CONFIG]: desired,
              [MCD_STATE]: "Done",
              [MCD_REASON]: "",
              [DESIRED_DRAIN]: `uncordon-${desired}`,
              [LAST_APPLIED_DRAIN]: `uncordon-${desired}`,
            },
            false,
          );
          return;
      }
    }
  }

  /** A new node boots with what the machine-config-server serves its pool: the pool's target config. */
  function firstBoot(node: KubeObject): void {
    const pool = primaryPool(node, store.list(K.pool.apiVersion, K.pool.kind));
    const target = pool && poolTarget(pool);
    if (!target) return;
    annotate(node.metadata.name, {
      [CURRENT_CONFIG]: target,
      [DESIRED_CONFIG]: target,
      [MCD_STATE]: "Done",
      [MCD_REASON]: "",
      [CONTROL_PLANE_TOPOLOGY]: "HighlyAvailable",
    });
  }

  const unsubscribe = store.subscribe(({ object }) => {
    if (isKind(object, K.node)) queue.add(object.metadata.name);
    else if (isKind(object, K.pool)) {
      for (const n of store.list("v1", "Node"))
        if (!annotationsOf(n)[CURRENT_CONFIG]) queue.add(n.metadata.name);
    }
  });
  const unwatchFaults = faults.onChange((t) => {
    if (t.kind === "node") queue.add(t.name);
  });
  for (const n of store.list("v1", "Node")) queue.add(n.metadata.name);
  return () => {
    unsubscribe();
    unwatchFaults();
  };
}
