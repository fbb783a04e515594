/**
 * What a step asks of the operation it belongs to: the state registered so far and the checkpoint's,
 * the providers (clusters, the dynamic-provider host, component packages), and the recording of what
 * it did (plan, events, state, failures). The deployment (deployment.ts) is one; the step modules
 * (kube-steps.ts, dynamic-steps.ts, component-steps.ts, refresh.ts) know only this, so that the
 * deployment can hand registrations to them without their importing it back.
 */
import type { Cluster } from "../kube";
import type { CheckpointResource, OperationType } from "./checkpoint";
import type { ComponentHost } from "./component-host";
import type { Diagnostic, EngineEvent } from "./diagnostics";
import type { KubeSettings } from "./diff";
import type { DynamicHost } from "./dynamic-host";
import type { Registration } from "./monitor";
import type { EngineOptions } from "./options";
import type { StepOp } from "./plan";
import type { Props } from "./rpc";

export interface StepContext {
  readonly options: EngineOptions;
  readonly dryRun: boolean;
  /** Resources registered so far in this operation, by URN. */
  readonly resources: Map<string, CheckpointResource>;
  /** Old resources replaced create-before-delete: deleted after the program. */
  readonly replaced: CheckpointResource[];
  /** The failures so far, as the operation ends with them. */
  readonly failures: string[];
  /** The address of the engine's monitor, for the providers that register resources with it. */
  monitorAddress(): string;
  /** The checkpoint's state of a registration, under its URN or one of its aliases. */
  priorOf(r: Registration): CheckpointResource | undefined;
  /** The cluster of a Kubernetes provider, or undefined while its configuration is unknown. */
  clusterOf(providerRef: string | undefined): Cluster | undefined;
  kubeSettings(providerRef: string | undefined): KubeSettings;
  /** The `urn::id` of a resource's provider, its package's default one unless the program gave one. */
  providerRef(r: Registration): string;
  dynamicHost(): Promise<DynamicHost>;
  componentHost(pkg: string): Promise<ComponentHost>;
  /** Adds a step to the plan. */
  step(op: StepOp, r: { urn: string; type: string }, diffs?: string[]): void;
  emit(event: EngineEvent): void;
  log(severity: Diagnostic["severity"], message: string, urn: string, ephemeral?: boolean): void;
  /** Records a failed step and returns the error that fails it. */
  fail(what: { type: string; name: string; parent?: string }, operation: StepOp, error: unknown): Error;
  /** Records a registration's state; returns its outputs as the program gets them. */
  record(r: Registration, id: string, inputs: Props, outputs: Props, external?: boolean): Props;
  stateOf(r: Registration, id: string, inputs: Props, outputs: Props, external?: boolean): CheckpointResource;
  pendingDuring<T>(resource: CheckpointResource, type: OperationType, work: () => Promise<T>): Promise<T>;
  recordInitFailure(r: Registration, id: string, inputs: Props, outputs: Props, reasons: string[]): void;
  /** Carries out a planned step, reporting it, and records its result in the state. */
  carryOut(
    op: StepOp,
    r: Registration,
    run: () => Promise<{ id: string; outputs: Props }>,
    inputs: Props,
  ): Promise<{ id: string; outputs: Props }>;
}
