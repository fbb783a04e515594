import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { durationSeconds } from "../../provider/dynamic/common";
import { ambientKubeconfig } from "../../provider/dynamic/credentials";
import type { CreatedObject } from "../../provider/waiting/identity";
import { inputPropertyError } from "../errors";
import { kubeconfigProblem } from "./kube";

/** What every component takes to wait until the cluster has converged on what it declared. */
export interface WaitArgs {
  /**
   * Wait until the cluster has converged (pool rolled out, machines Ready nodes, operator Succeeded);
   * default true. `false` declares the objects and returns at once.
   */
  wait?: boolean;
  /**
   * Kubeconfig the waiters use; kept secret in state. Default: the file named by $KUBECONFIG (its
   * first entry), else ~/.kube/config, as the Kubernetes provider does.
   * @secret
   */
  kubeconfig?: pulumi.Input<string>;
  /** Deadlines of the waits (`create`, `update`, `delete`, e.g. "45m"); default 30 minutes each. */
  waitTimeouts?: pulumi.CustomTimeouts;
}

/** What every component takes to reach the cluster and wait: a composite component passes it on whole. */
export interface SharedArgs extends WaitArgs {
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
}

/** The shared args of a component, for the components it declares. */
export function sharedArgs(args: SharedArgs): SharedArgs {
  return {
    provider: args.provider,
    wait: args.wait,
    kubeconfig: args.kubeconfig,
    waitTimeouts: args.waitTimeouts,
  };
}

/** A Kubernetes object the component declared, as its provider reports it once created. */
export interface DeclaredObject {
  apiVersion: pulumi.Output<string>;
  kind: pulumi.Output<string>;
  metadata: pulumi.Output<{ name?: string; namespace?: string; uid?: string } | undefined>;
}

export interface Waiting {
  kubeconfig: pulumi.Output<string>;
  /**
   * A waiter's connection: the kubeconfig, and the objects it waits on as the component's provider
   * created them, which the waiter finds with the same UIDs before it waits or fails at once: the
   * provider and the kubeconfig are two sources of a connection, and may name two clusters.
   */
  watching(objects: pulumi.Input<DeclaredObject[]>): {
    kubeconfig: pulumi.Output<string>;
    created: pulumi.Output<CreatedObject[] | undefined>;
  };
  /** Fails, as soon as the kubeconfig is known, when it is not one; components combine it into their checks. */
  check: pulumi.Output<void>;
  /** Options for a waiter: its parent, what it waits after, and the deadlines. */
  options(dependsOn: pulumi.Input<pulumi.Input<pulumi.Resource>[]>): pulumi.CustomResourceOptions;
}

function access(
  kubeconfig: pulumi.Input<string>,
  args: WaitArgs,
  parent: pulumi.Resource,
  source = "",
): Waiting {
  const check = pulumi.output(kubeconfig).apply((text) => {
    const problem = kubeconfigProblem(text);
    if (problem) throw inputPropertyError("kubeconfig", `${source}${problem}`);
  });
  const secretKubeconfig = pulumi.secret(pulumi.all([check, kubeconfig]).apply(([, text]) => text));
  return {
    kubeconfig: secretKubeconfig,
    watching: (objects) => ({ kubeconfig: secretKubeconfig, created: createdObjects(objects) }),
    check: pulumi.unsecret(check),
    options: (dependsOn) => ({
      parent,
      dependsOn,
      ...(args.waitTimeouts ? { customTimeouts: args.waitTimeouts } : {}),
    }),
  };
}

/**
 * The objects as created, those without a UID (not created by a provider that reports one) left out;
 * undefined when none has one (a render), so that the waiter carries no empty list.
 */
function createdObjects(objects: pulumi.Input<DeclaredObject[]>): pulumi.Output<CreatedObject[] | undefined> {
  return pulumi
    .output(objects)
    .apply((list) => pulumi.all(list.map((o) => pulumi.all([o.apiVersion, o.kind, o.metadata]))))
    .apply((list) =>
      list.flatMap(([apiVersion, kind, metadata]) =>
        metadata?.uid && metadata.name
          ? [
              {
                apiVersion,
                kind,
                name: metadata.name,
                ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
                uid: metadata.uid,
              },
            ]
          : [],
      ),
    )
    .apply((created) => (created.length > 0 ? created : undefined));
}

/** Deadlines as the waiters read them, checked here so that a bad one is an input error at preview. */
function checkWaitTimeouts(timeouts: pulumi.CustomTimeouts | undefined): void {
  for (const key of ["create", "update", "delete"] as const) {
    const value = timeouts?.[key];
    if (value === undefined) continue;
    try {
      if (typeof value !== "string" || durationSeconds(value) === undefined)
        throw new Error("not a duration");
    } catch {
      throw inputPropertyError(
        `waitTimeouts.${key}`,
        `${JSON.stringify(value)} is not a duration: use a number with a unit (ms, s, m or h), e.g. "90s", "45m" or "1h30m"`,
      );
    }
  }
}

/** The waiting setup of a component, or undefined with `wait: false`. */
export function waiting(args: WaitArgs, parent: pulumi.Resource): Waiting | undefined {
  if (args.wait === false) return undefined;
  checkWaitTimeouts(args.waitTimeouts);
  if (args.kubeconfig !== undefined) return access(args.kubeconfig, args, parent);
  const { file, text } = ambientKubeconfig();
  if (text === undefined) {
    throw inputPropertyError(
      "kubeconfig",
      `waiting for the cluster needs its kubeconfig: pass kubeconfig, point $KUBECONFIG at it (${file} could not be read), or set wait: false`,
    );
  }
  return access(text, args, parent, `the file ${file} (from $KUBECONFIG or ~/.kube/config) `);
}

/**
 * Cluster access for what runs whether or not the component waits (an uninstall on destroy), so that
 * turning waiting off does not delete it: as `waiting` finds it, and with `wait: false` the kubeconfig
 * given or found, if any.
 */
export function clusterAccess(args: WaitArgs, parent: pulumi.Resource): Waiting | undefined {
  if (args.wait !== false) return waiting(args, parent);
  if (args.kubeconfig !== undefined) return access(args.kubeconfig, args, parent);
  const { file, text } = ambientKubeconfig();
  return text === undefined
    ? undefined
    : access(text, args, parent, `the file ${file} (from $KUBECONFIG or ~/.kube/config) `);
}
