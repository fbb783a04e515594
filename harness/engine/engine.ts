/**
 * A small engine for one stack: what `pulumi preview`, `up`, `refresh` and `destroy` do, with the
 * program run by the SDK's language entry point over the ResourceMonitor protocol (monitor.ts),
 * dynamic resources carried out by the SDK's dynamic-provider host (dynamic-host.ts), and Kubernetes
 * resources applied by the harness with server-side apply (the pulumi-kubernetes provider is a Go
 * plugin that cannot be installed here). Each registration becomes a step (create, update, replace,
 * same) decided from the checkpoint of the last deployment (plan.ts) and carried out by its provider
 * (kube-steps.ts, dynamic-steps.ts) within the operation's deployment (deployment.ts); a preview plans
 * the steps and carries out none of them, handing the program its inputs as outputs, unknowns
 * included, as the engine does for providers without previews. This module runs the operations: the
 * stack's lock, the program, and the checkpoint written at the end.
 */
import * as fs from "node:fs";
import { armImport } from "../fixtures";
import { Cluster } from "../kube";
import {
  Checkpoint,
  CheckpointResource,
  loadCheckpoint,
  lockStack,
  PendingOperation,
  saveCheckpoint,
} from "./checkpoint";
import { Deployment } from "./deployment";
import { startMonitor } from "./monitor";
import type { EngineOptions } from "./options";
import type { PlanStep } from "./plan";
import { runProgram } from "./program";
import { runYamlProgram } from "./yaml-program";
import { refreshResources } from "./refresh";
import type { Props } from "./rpc";

export type { EngineOptions } from "./options";

export interface EngineResult {
  ok: boolean;
  errors: string[];
  plan: PlanStep[];
  outputs: Props;
  checkpoint: Checkpoint;
}

function priorMap(checkpoint: Checkpoint): Map<string, CheckpointResource> {
  return new Map(checkpoint.deployment.resources.map((r) => [r.urn, r]));
}

/**
 * Writes the state: `resources`, then the operations under way and the base's pending creates, which
 * every later operation keeps until a refresh clears them, as a create's outcome is unknown
 * (SnapshotManager.snap; other pending operations are dropped, their resources' state is known).
 */
function save(
  options: EngineOptions,
  checkpoint: Checkpoint,
  resources: CheckpointResource[],
  underWay: Iterable<PendingOperation> = [],
  clearPendingCreates = false,
): Checkpoint {
  const carried = clearPendingCreates
    ? []
    : (checkpoint.deployment.pending_operations ?? []).filter((op) => op.type === "creating");
  const pending = [...underWay, ...carried];
  const { pending_operations: _, ...deployment } = checkpoint.deployment;
  const next: Checkpoint = {
    ...checkpoint,
    deployment: { ...deployment, resources, ...(pending.length > 0 ? { pending_operations: pending } : {}) },
  };
  if (options.statePath) saveCheckpoint(options.statePath, next);
  return next;
}

/**
 * The warning an `up` starts with when the last operation left pending operations, in the CLI's words
 * (deployment_executor.go, printPendingOperationsWarning).
 */
export function pendingOperationsWarning(pending: PendingOperation[]): string {
  return (
    `Attempting to deploy or update resources with ${pending.length} pending operations from previous deployment.\n` +
    pending.map((op) => `  * ${op.resource.urn}, interrupted while ${op.type}\n`).join("") +
    "These resources are in an unknown state because the Pulumi CLI was interrupted while waiting for changes to these resources to complete. You should confirm whether or not the operations listed completed successfully by checking the state of the appropriate provider. For example, if you are using AWS, you can confirm using the AWS Console.\n" +
    "\n" +
    "Once you have confirmed the status of the interrupted operations, you can repair your stack using `pulumi refresh` which will refresh the state from the provider you are using and clear the pending operations if there are any.\n" +
    "\n" +
    "Note that `pulumi refresh` will need to be run interactively to clear pending CREATE operations."
  );
}

/**
 * Runs an operation that writes the state under the stack's lock; one the lock refuses fails before
 * anything is read or changed.
 */
async function locked(options: EngineOptions, run: () => Promise<EngineResult>): Promise<EngineResult> {
  let release: () => void;
  try {
    release = options.statePath ? lockStack(options.statePath) : () => undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      errors: [message],
      plan: [],
      outputs: {},
      checkpoint: loadCheckpoint(options.statePath),
    };
  }
  try {
    return await run();
  } finally {
    release();
  }
}

/** `pulumi preview` (dryRun) or `pulumi up`: runs the program and carries out (or plans) its steps. */
export function update(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  return dryRun ? updateStack(options, true) : locked(options, () => updateStack(options, false));
}

async function updateStack(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const prior = priorMap(checkpoint);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"), options.sleep);
  let address = "";
  const deployment = new Deployment(options, dryRun, prior, cluster, () => address);
  // What this deployment did, then what it did not touch yet (or kept when it failed before deleting them).
  const snapshot = () => [
    ...deployment.resources.values(),
    ...checkpoint.deployment.resources.filter(
      (r) =>
        !deployment.resources.has(r.urn) && !deployment.deleted.has(r.urn) && !deployment.aliased.has(r.urn),
    ),
  ];
  if (!dryRun) deployment.persist = () => save(options, checkpoint, snapshot(), deployment.pending.values());
  const pending = checkpoint.deployment.pending_operations ?? [];
  if (!dryRun && pending.length > 0) deployment.log("warning", pendingOperationsWarning(pending), "");
  const monitor = await startMonitor(options.project.name, options.project.stack, deployment);
  address = monitor.address;
  try {
    const program = (options.project.runtime === "yaml" ? runYamlProgram : runProgram)(options.project, {
      monitor: monitor.address,
      dryRun,
      env: { KUBECONFIG: options.kubeconfigPath, ...options.env },
      imports: armImport(options.fixtures),
    });
    deployment.cancelProgram = program.cancel;
    const run = await program.done;
    const programErrors = deployment.programErrors();
    if (run.code !== 0 && deployment.failures.length === 0 && programErrors.length === 0) {
      programErrors.push(
        deployment.diagnostics.secrets.text(`the program exited with code ${run.code}: ${run.output.trim()}`),
      );
    }
    let errors = [...deployment.failures, ...programErrors];
    if (errors.length === 0) {
      const removed = checkpoint.deployment.resources.filter(
        (r) => !deployment.resources.has(r.urn) && !deployment.aliased.has(r.urn),
      );
      await deployment.deleteAll([...removed, ...deployment.replaced]);
      errors = [...deployment.failures];
    }
    if (dryRun) {
      return {
        ok: errors.length === 0,
        errors,
        plan: deployment.plan,
        outputs: deployment.outputs,
        checkpoint,
      };
    }
    const next = save(options, checkpoint, snapshot());
    return {
      ok: errors.length === 0,
      errors,
      plan: deployment.plan,
      outputs: deployment.outputs,
      checkpoint: next,
    };
  } finally {
    await deployment.close();
    await monitor.stop();
  }
}

/** `pulumi destroy`: deletes every resource of the checkpoint, dependents first. */
export function destroy(options: EngineOptions, dryRun = false): Promise<EngineResult> {
  return dryRun ? destroyStack(options, true) : locked(options, () => destroyStack(options, false));
}

async function destroyStack(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"), options.sleep);
  const deployment = new Deployment(options, dryRun, priorMap(checkpoint), cluster, () => "127.0.0.1:0");
  const remaining = () => checkpoint.deployment.resources.filter((r) => !deployment.deleted.has(r.urn));
  if (!dryRun) deployment.persist = () => save(options, checkpoint, remaining(), deployment.pending.values());
  try {
    await deployment.deleteAll(checkpoint.deployment.resources);
    const errors = [...deployment.failures];
    const next = dryRun ? checkpoint : save(options, checkpoint, remaining());
    return { ok: errors.length === 0, errors, plan: deployment.plan, outputs: {}, checkpoint: next };
  } finally {
    await deployment.close();
  }
}

/**
 * `pulumi refresh`: reads every resource back and shows as drift what the next `up` would change
 * (refresh.ts).
 */
export function refresh(options: EngineOptions): Promise<EngineResult> {
  return locked(options, () => refreshStack(options));
}

async function refreshStack(options: EngineOptions): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"), options.sleep);
  const deployment = new Deployment(options, false, priorMap(checkpoint), cluster, () => "127.0.0.1:0");
  try {
    const { plan, resources } = await refreshResources(deployment, checkpoint.deployment.resources);
    const errors = [...deployment.failures];
    const next = save(options, checkpoint, resources, [], options.clearPendingCreates);
    return { ok: errors.length === 0, errors, plan, outputs: {}, checkpoint: next };
  } finally {
    await deployment.close();
  }
}
