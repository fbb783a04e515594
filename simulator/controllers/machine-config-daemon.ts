/**
 * The machine-config-daemon on every Linux node, as one controller keyed by node: when the controller
 * sets `desiredConfig`, it reports Working, decides the post-config action from the diff of the two
 * rendered configs and the cluster's node disruption policies (MachineConfiguration `cluster`), cordons
 * and drains when that action needs it, writes the files, then reboots, reloads or restarts services
 * or does nothing, uncordons and reports Done with `currentConfig` = `desiredConfig`. Every step is
 * reported on the node's MachineConfigNode. Failures and injected faults turn the node Degraded with a
 * reason, as the MCD reports them.
 */
import { annotationsOf, field, getCondition, obj } from "../../primitives/objects";
import { CURRENT_CONFIG, DESIRED_CONFIG, MCD_REASON, MCD_STATE } from "../../primitives/openshift";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { cordon } from "./machine-api";
import { ClusterPolicies, serviceOf } from "../../builders/rollout-impact/rules";
import { McnChange, ensureMachineConfigNode, reportMachineConfigNode } from "./machine-config-node";
import { NodeImpact, nodeImpact, specOf, writeProblem } from "./machineconfig";
import {
  CONTROL_PLANE_TOPOLOGY,
  DESIRED_DRAIN,
  LAST_APPLIED_DRAIN,
  isWindowsNode,
  poolTarget,
  primaryPool,
} from "./mco-pools";
import { Stepper, WorkQueue } from "./workqueue";
import { Condition, K, isKind, keyOf, recordEvent, timestamp } from "./util";
import { drainError, evictFrom, goDuration } from "./disruption";

type Stage = "start" | "drain" | "apply" | "reboot" | "reload" | "finish";

interface Progress {
  target: string;
  stage: Stage;
  cordoned: boolean;
  /** What the update does, decided once per attempt from the merged policies. */
  impact?: NodeImpact;
  /** The drain of this update: when it began, and when its current or next attempt begins (ms). */
  drain?: { since: number; attempt: number };
}

/** The MCO drain controller's DefaultConfig and helper settings (drain_controller.go). */
const DRAIN = {
  /** DrainHelperTimeout: how long one attempt retries refused evictions. */
  helperTimeoutMs: 90_000,
  /** EvictErrorRetryDelay. */
  evictRetryMs: 5_000,
  /** DrainRequeueDelay, then DrainRequeueFailingDelay once failing for DrainRequeueFailingThreshold. */
  requeueMs: 60_000,
  failingThresholdMs: 10 * 60_000,
  failingRequeueMs: 5 * 60_000,
  /** DrainTimeoutDuration, past which every attempt also records DrainFailed. */
  timeoutMs: 60 * 60_000,
};

/** The source of the drain controller's events (its recorder's component). */
const DRAIN_EVENTS = "machineconfigcontroller-nodecontroller";

/** daemon.go maxUpdateBackoff. */
const MAX_UPDATE_BACKOFF_MS = 60_000;
/** update.go calculatePostConfigChangeNodeDisruptionAction: wait.PollUntilContextTimeout every 5 s. */
const POLICY_POLL_MS = 5_000;

export function startMachineConfigDaemon(ctx: ControllerContext): StopFn {
  const { clock, delays, faults } = ctx;
  const store = ctx.writer("machine-config-daemon");
  const queue = new WorkQueue("machine-config-daemon", clock, sync);
  const steps = new Stepper(queue, clock);
  const progress = new Map<string, Progress>();
  // The drain controller runs in machine-config-controller: its evictions and events are its own.
  const evictions = ctx.writer("machine-config-controller");
  const events = ctx.writer(DRAIN_EVENTS);
  /**
   * The desired config a node failed to apply and how often: the daemon tries again after a backoff of
   * 1 s doubling up to a minute (daemon.go handleErr, AddRateLimited with maxUpdateBackoff), Degraded
   * meanwhile.
   */
  const failed = new Map<string, { desired: string; attempts: number }>();

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

  const report = (name: string, changes: McnChange[], version?: { desired?: string; current?: string }) =>
    reportMachineConfigNode(store, name, changes, clock.now(), version);

  /**
   * The cluster's policies as the operator merged them into the status (machine-configuration.ts), or
   * undefined while the status has not observed the current generation: update.go
   * calculatePostConfigChangeNodeDisruptionAction polls MachineConfiguration/cluster until
   * `status.observedGeneration` is its generation, then reads `status.nodeDisruptionPolicyStatus`.
   */
  const policies = (): ClusterPolicies | undefined => {
    const configuration = store.get(keyOf(K.machineConfiguration, "cluster"));
    const merged = field<ClusterPolicies>(
      configuration,
      "status",
      "nodeDisruptionPolicyStatus",
      "clusterPolicies",
    );
    const current =
      field(configuration, "status", "observedGeneration") === configuration?.metadata.generation;
    return configuration && current && merged ? merged : undefined;
  };

  function degrade(
    name: string,
    reason: string,
    extra: Record<string, string> = {},
    cordoned?: boolean,
    phase: McnChange[] = [],
  ): void {
    annotate(name, { [MCD_STATE]: "Degraded", [MCD_REASON]: reason, ...extra }, cordoned);
    report(name, [
      ...phase,
      { type: "NodeDegraded", status: "True", reason: "NodeDegraded", message: reason },
    ]);
  }

  /**
   * The MCO's drain controller draining a cordoned node for `desired` (drain_controller.go syncNode,
   * drainNode): each attempt evicts the node's pods through the kubectl drain helper, which retries a
   * refused eviction every 5 s for 90 s (drain.go evictPods: "global timeout reached"); a failed attempt
   * is written on the MachineConfigNode's Drained condition with the helper's error and tried again after
   * a minute, after five once the drain has failed for ten (a DrainThresholdExceeded event on the node),
   * with a DrainFailed event on every attempt past the hour. True once every pod is gone.
   */
  function drained(name: string, desired: string, p: Progress): boolean {
    const now = clock.now().getTime();
    if (!p.drain) {
      if (!steps.ready(name, `${desired}/drain`, delays.drain)) return false;
      p.drain = { since: now, attempt: now };
    }
    const d = p.drain;
    if (now < d.attempt) return false;
    const refused = evictFrom(evictions, name);
    if (refused.length === 0) return true;
    const elapsed = now - d.attempt;
    const retrying = refused.some((r) => r.refusal.code === 429);
    if (retrying && elapsed < DRAIN.helperTimeoutMs) {
      clock.after(Math.min(DRAIN.evictRetryMs, DRAIN.helperTimeoutMs - elapsed), () => queue.add(name));
      return false;
    }
    const node = store.get(keyOf(K.node, name));
    const failingFor = d.attempt - d.since;
    if (node && failingFor > DRAIN.timeoutMs)
      recordEvent(
        events,
        clock.now(),
        node,
        "Warning",
        "DrainFailed",
        `node ${name}: drain exceeded timeout: ${goDuration(DRAIN.timeoutMs)}. Will continue to retry.`,
        DRAIN_EVENTS,
      );
    const error = drainError(refused, DRAIN.helperTimeoutMs);
    const slowed = failingFor > DRAIN.failingThresholdMs;
    if (node && slowed)
      recordEvent(
        events,
        clock.now(),
        node,
        "Warning",
        "DrainThresholdExceeded",
        `Drain failed. Drain has been failing for more than ${DRAIN.failingThresholdMs / 60_000} minutes. Waiting ${DRAIN.failingRequeueMs / 60_000} minutes then retrying. Error message from drain: ${error}`,
        DRAIN_EVENTS,
      );
    const lastApplied = annotationsOf(node)[LAST_APPLIED_DRAIN] ?? "";
    report(name, [
      {
        type: "UpdateExecuted",
        status: "Unknown",
        reason: "Drained",
        message: "Node Drain has not succeeded",
      },
      {
        type: "Drained",
        status: "Unknown",
        reason: "UpdateExecutedDrained",
        message: `Error: Node Drain has not succeeded. Error is: ${error} The drain will not be complete until desired drainer drain-${desired} matches current drainer ${lastApplied}`,
      },
    ]);
    const requeue = slowed ? DRAIN.failingRequeueMs : DRAIN.requeueMs;
    d.attempt = now + requeue;
    clock.after(requeue, () => queue.add(name));
    return false;
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
    const pool = primaryPool(node, store.list(K.pool.apiVersion, K.pool.kind));
    if (pool) ensureMachineConfigNode(store, node, pool.metadata.name, a[CURRENT_CONFIG], clock.now());
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
      const mcn = store.get(keyOf(K.machineConfigNode, name));
      const mcnConditions = field(mcn, "status", "conditions");
      if (
        mcn &&
        (getCondition(mcnConditions, "Updated")?.status !== "True" ||
          getCondition(mcnConditions, "NodeDegraded")?.status === "True")
      ) {
        report(
          name,
          [{ type: "Updated", status: "True", reason: "Updated", message: `Node ${name} Updated` }],
          {
            desired: current,
            current,
          },
        );
      }
      return;
    }
    const failure = failed.get(name);
    if (failure?.desired === desired) {
      const backoff = Math.min(MAX_UPDATE_BACKOFF_MS, 1000 * 2 ** (failure.attempts - 1));
      if (!steps.ready(name, `${desired}/retry-${failure.attempts}`, backoff)) return;
      progress.set(name, { target: desired, stage: "apply", cordoned: false });
    } else failed.delete(name);
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
      p = { target: desired, stage: "start", cordoned: false };
      progress.set(name, p);
    }
    if (!p.impact) {
      // Decided once per attempt, before anything is reported (update.go update).
      const merged = policies();
      if (!merged) {
        // Polled every 5 s, as the daemon polls the status before it decides (see `policies`).
        queue.addAfter(name, POLICY_POLL_MS);
        return;
      }
      p.impact = nodeImpact(mcSpec(current), target, merged);
    }
    const impact = p.impact;
    const services = impact.actions.map((x) => ({ type: x.type, service: serviceOf(x) }));
    for (;;) {
      switch (p.stage) {
        case "start":
          report(
            name,
            [
              {
                type: "Updated",
                status: "False",
                reason: "Updated",
                message: `Node ${name} needs an update`,
              },
              {
                type: "UpdatePrepared",
                status: "True",
                message: `Update Compatible. Post Cfg Actions: [${impact.actions.map((x) => x.type).join(" ")}] Drain Required: ${impact.drain}`,
              },
            ],
            { desired },
          );
          p.cordoned = impact.drain;
          // update.go update(): Working only over a state that is not Degraded or Unreconcilable, so a
          // node that failed an older config keeps that state and reason until this update is Done.
          annotate(
            name,
            {
              ...(a[MCD_STATE] === "Degraded" || a[MCD_STATE] === "Unreconcilable"
                ? {}
                : { [MCD_STATE]: "Working", [MCD_REASON]: "" }),
              ...(impact.drain ? { [DESIRED_DRAIN]: `drain-${desired}` } : {}),
            },
            impact.drain ? true : undefined,
          );
          report(
            name,
            impact.drain
              ? [
                  {
                    type: "UpdateExecuted",
                    status: "Unknown",
                    message:
                      "Draining node. The drain will not be complete until desired drainer matches current drainer",
                  },
                  {
                    type: "Cordoned",
                    status: "True",
                    reason: "UpdateExecutedCordoned",
                    message: "Cordoned node. The node is reporting Unschedulable = true",
                  },
                  {
                    type: "Drained",
                    status: "Unknown",
                    reason: "UpdateExecutedDrained",
                    message: `Draining node. The drain will not be complete until desired drainer drain-${desired} matches current drainer`,
                  },
                ]
              : [
                  {
                    type: "UpdateExecuted",
                    status: "Unknown",
                    reason: "Drained",
                    message: "Node Drain Not required for this update.",
                  },
                  {
                    type: "Drained",
                    status: "False",
                    reason: "UpdateExecutedDrained",
                    message: "Node Drain Not required for this update.",
                  },
                ],
          );
          p.stage = impact.drain ? "drain" : "apply";
          break;
        case "drain":
          if (!drained(name, desired, p)) return;
          annotate(name, { [LAST_APPLIED_DRAIN]: `drain-${desired}` });
          report(name, [
            {
              type: "Drained",
              status: "True",
              reason: "UpdateExecutedDrained",
              message: `Drained node. The drain is complete as the desired drainer matches current drainer: drain-${desired}`,
            },
          ]);
          p.stage = "apply";
          break;
        case "apply": {
          if (!steps.ready(name, `${desired}/apply`, delays.apply) || faults.osUpdateHeld(name)) return;
          // update.go update reports the step on every attempt, so a retry that fails alike flips the
          // MachineConfigNode from "Updating" to "Error updating" and back while nothing progresses.
          report(name, [
            {
              type: "UpdateExecuted",
              status: "Unknown",
              reason: "AppliedFilesAndOS",
              message: "Updating the Files and OS on disk as a part of the in progress phase",
            },
            {
              type: "AppliedFilesAndOS",
              status: "Unknown",
              reason: "UpdateExecutedAppliedFilesAndOS",
              message: "Applying files and new OS config to node.",
            },
          ]);
          const problem = impact.diff.files
            .filter((f) => (target.config?.storage?.files ?? []).some((x) => x.path === f))
            .map(writeProblem)
            .find((x) => x !== undefined);
          if (problem) {
            // The daemon rolls its partial writes back, uncordons and reports why it is stuck. Its retries
            // go straight to the writes (drain.go performDrain skips a drain already done), so while
            // they keep failing they change nothing on the node.
            failed.set(name, { desired, attempts: (failed.get(name)?.attempts ?? 0) + 1 });
            progress.delete(name);
            degrade(
              name,
              problem,
              p.cordoned
                ? { [DESIRED_DRAIN]: `uncordon-${desired}`, [LAST_APPLIED_DRAIN]: `uncordon-${desired}` }
                : {},
              p.cordoned ? false : undefined,
              [
                {
                  type: "UpdateExecuted",
                  status: "Unknown",
                  reason: "AppliedFilesAndOS",
                  message: `Error updating the Files on disk as a part of the in progress phase: ${problem}`,
                },
                {
                  type: "AppliedFilesAndOS",
                  status: "False",
                  reason: "UpdateExecutedAppliedFilesAndOS",
                  message: problem,
                },
              ],
            );
            return;
          }
          report(name, [
            {
              type: "AppliedFilesAndOS",
              status: "True",
              reason: "UpdateExecutedAppliedFilesAndOS",
              message:
                "Applied files and new OS config to node. OS did not need an update. SSH Keys did not need an update",
            },
            {
              type: "UpdateExecuted",
              status: "True",
              reason: "AppliedFilesAndOS",
              message: "Updated the Files and OS on disk as a part of the in progress phase",
            },
          ]);
          if (impact.reboot) {
            report(name, [
              {
                type: "UpdatePostActionComplete",
                status: "Unknown",
                reason: "RebootedNode",
                message: "Upgrade requires a reboot.",
              },
              {
                type: "RebootedNode",
                status: "Unknown",
                reason: "UpdatePostActionCompleteRebootedNode",
                message: "Upgrade requires a reboot. Currently doing reboot.",
              },
            ]);
            setReady(name, false);
            p.stage = "reboot";
          } else {
            p.stage = "reload";
          }
          break;
        }
        case "reboot":
          if (!steps.ready(name, `${desired}/reboot`, delays.reboot)) return;
          setReady(name, true);
          report(name, [
            {
              type: "RebootedNode",
              status: "True",
              reason: "UpdatePostActionCompleteRebootedNode",
              message: "Node has rebooted",
            },
            {
              type: "UpdatePostActionComplete",
              status: "True",
              reason: "RebootedNode",
              message: "Node has rebooted",
            },
          ]);
          p.stage = "finish";
          break;
        case "reload": {
          const acting = services.filter((x) => x.type !== "None");
          if (acting.length > 0 && !steps.ready(name, `${desired}/reload`, delays.reload)) return;
          // The daemon's messages: "Node has reloaded service <name>" (Reload, Special), a restart has none of its own.
          const done = acting.map((x) =>
            x.type === "DaemonReload"
              ? "Node has reloaded service daemon-reload"
              : x.type === "Restart"
                ? `Service ${x.service} was restarted`
                : `Node has reloaded service ${x.service}`,
          );
          report(name, [
            {
              type: "UpdatePostActionComplete",
              status: "True",
              reason: acting.length > 0 ? "UpdatePostActionComplete" : "None",
              message: acting.length > 0 ? done.join("; ") : "Changes do not require a reboot",
            },
          ]);
          p.stage = "finish";
          break;
        }
        case "finish":
          progress.delete(name);
          annotate(
            name,
            {
              [CURRENT_CONFIG]: desired,
              [MCD_STATE]: "Done",
              [MCD_REASON]: "",
              ...(p.cordoned
                ? { [DESIRED_DRAIN]: `uncordon-${desired}`, [LAST_APPLIED_DRAIN]: `uncordon-${desired}` }
                : {}),
            },
            p.cordoned ? false : undefined,
          );
          report(
            name,
            [
              {
                type: "UpdateComplete",
                status: "True",
                reason: "UpdateComplete",
                message: "Node Update Complete",
              },
              ...(p.cordoned
                ? [
                    {
                      type: "Uncordoned" as const,
                      status: "True" as const,
                      reason: "UpdateCompleteUncordoned",
                      message: "Successfully uncordoned node",
                    },
                  ]
                : []),
              {
                type: "Resumed",
                status: "True",
                reason: "Resumed",
                message: `In desired config ${desired}. Resumed normal operations.`,
              },
            ],
            { current: desired },
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
