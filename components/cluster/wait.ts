import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { durationSeconds, timeoutsFrom } from "../../provider/dynamic/common";
import {
  ambientKubeconfig,
  clusterServer,
  ProviderSettings,
  providerKubeconfig,
} from "../../provider/dynamic/credentials";
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
   * Kubeconfig the waiters use; kept secret in state. Default: the one the component's Kubernetes
   * provider connects with (its `kubeconfig`, `context` and `cluster`; for the default provider the
   * stack's `kubernetes:` config, else $KUBECONFIG's files merged, else ~/.kube/config, else in a pod
   * its service account, as pulumi-kubernetes falls back to it), so that the
   * waiters and the preview's reads reach the cluster the objects go to. When given, it must reach the
   * same API server as the provider, else the preview fails naming both.
   * @secret
   */
  kubeconfig?: pulumi.Input<string>;
  /** Deadlines of the waits (`create`, `update`, `delete`, e.g. "45m"); default 30 minutes each. */
  waitTimeouts?: pulumi.CustomTimeouts;
}

/** What every component takes to reach the cluster and wait: a composite component passes it on whole. */
export interface SharedArgs extends WaitArgs {
  /**
   * Kubernetes provider for the cluster, of the objects and the waiters; default the `provider` or
   * `providers` option's (the component's or a parent's), else the stack's default provider.
   */
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
  /** The deadline of its waiters' create and update that `waitTimeouts` sets, in seconds; none when it sets none. */
  deadlineSeconds?: number;
}

/** The longer of `waitTimeouts.create` and `.update`, as the waiters take it (timeoutsFrom); undefined when unset or not a duration. */
function configuredDeadline(timeouts: pulumi.CustomTimeouts | undefined): number | undefined {
  try {
    return timeoutsFrom(undefined, { customTimeouts: timeouts }).timeoutSeconds as number | undefined;
  } catch {
    // A bad duration is checkWaitTimeouts' to report.
    return undefined;
  }
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
    deadlineSeconds: configuredDeadline(args.waitTimeouts),
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

/**
 * A context or cluster name a provider was given. The engine returns no output for a setting the
 * provider was not given, which the SDK resolves as unknown in a preview (rpc.ts, resolveProperties):
 * so at preview an unknown name counts as absent (a name computed by another resource is known at
 * `up`), while an unknown kubeconfig (a cluster the stack creates) keeps the connection unknown.
 */
function givenName(setting: pulumi.Output<string> | undefined): pulumi.Output<string | undefined> {
  if (setting === undefined) return pulumi.output(undefined);
  const resolved = setting as unknown as { isKnown: Promise<boolean>; promise(): Promise<string> };
  return pulumi.output(resolved.isKnown.then((known) => (known ? resolved.promise() : undefined)));
}

/**
 * The connection settings of the component's Kubernetes provider: an explicit provider reports its
 * inputs as its outputs (the engine's provider registry returns them from Create, preview included),
 * the default provider is configured from the stack's `kubernetes:` config. Undefined for a default
 * provider without such config, which connects with the ambient kubeconfig.
 */
function providerSettings(provider: k8s.Provider | undefined): pulumi.Output<ProviderSettings> | undefined {
  if (provider) {
    const inputs = provider as unknown as Partial<Record<keyof ProviderSettings, pulumi.Output<string>>>;
    return pulumi
      .all([inputs.kubeconfig, givenName(inputs.context), givenName(inputs.cluster)])
      .apply(([kubeconfig, context, cluster]) => ({ kubeconfig, context, cluster }));
  }
  const config = new pulumi.Config("kubernetes");
  const [context, cluster] = [config.get("context"), config.get("cluster")];
  const kubeconfig = config.getSecret("kubeconfig");
  if (kubeconfig === undefined && !context && !cluster) return undefined;
  return pulumi.output(kubeconfig).apply((k) => ({ kubeconfig: k, context, cluster }));
}

/**
 * The Kubernetes provider of the component's `provider`/`providers` options (its own or a parent's),
 * which its objects without a `provider` argument go through (the SDK's Resource.getProvider, by package).
 */
function optionsProvider(parent: pulumi.Resource): k8s.Provider | undefined {
  return parent.getProvider("kubernetes::") as k8s.Provider | undefined;
}

const AMBIENT = "(from $KUBECONFIG or ~/.kube/config)";

/**
 * The waiters' access on the provider's connection. A `kubeconfig` given is the waiters' only when it
 * reaches the provider's API server (the ambient kubeconfig's for a default provider without config,
 * when there is one): waits and preview reads on another cluster than the objects' would never see
 * them converge.
 */
function connection(args: SharedArgs, parent: pulumi.Resource, required: boolean): Waiting | undefined {
  const provider = args.provider ?? optionsProvider(parent);
  const settings = providerSettings(provider);
  if (settings === undefined) {
    const { file, text, inCluster } = ambientKubeconfig();
    const source = inCluster ? file : `the file ${file} ${AMBIENT}`;
    const where = `${source}, which the default Kubernetes provider connects with,`;
    if (args.kubeconfig !== undefined) {
      return access(
        text === undefined ? args.kubeconfig : sameCluster(args.kubeconfig, text, where),
        args,
        parent,
      );
    }
    if (text !== undefined) return access(text, args, parent, `${source} `);
    if (!required) return undefined;
    throw inputPropertyError(
      "kubeconfig",
      `waiting for the cluster needs its kubeconfig: pass kubeconfig, point $KUBECONFIG at it (${file} could not be read), run the program in a pod (its service account's), or set wait: false`,
    );
  }
  const property = args.provider ? "provider" : "kubeconfig";
  const where = provider ? "the component's Kubernetes provider" : "the stack's kubernetes: config";
  const derived = settings.apply((s) => {
    const { file, text } = providerKubeconfig(s);
    if (text === undefined) {
      throw inputPropertyError(
        property,
        `the waiters connect as ${where} does, but no kubeconfig could be read at ${file} ${AMBIENT}: give the provider a kubeconfig, or set wait: false`,
      );
    }
    const problem = kubeconfigProblem(text);
    if (problem) throw inputPropertyError(property, `the kubeconfig of ${where} ${problem}`);
    return text;
  });
  if (args.kubeconfig === undefined) return access(derived, args, parent);
  return access(sameCluster(args.kubeconfig, derived, where), args, parent);
}

/** The kubeconfig given, once known to reach the API server of the provider's, `where` saying whose that is. */
function sameCluster(
  given: pulumi.Input<string>,
  providers: pulumi.Input<string>,
  where: string,
): pulumi.Output<string> {
  return pulumi.all([given, providers]).apply(([text, theirs]) => {
    const [ours, provider] = [clusterServer(text), clusterServer(theirs)];
    if (ours !== undefined && provider !== undefined && ours !== provider) {
      throw inputPropertyError(
        "kubeconfig",
        `reaches ${ours}, but ${where} reaches ${provider}: the waiters and the preview's reads would watch another cluster than the one the objects go to. Leave kubeconfig out (the waiters then connect as the provider does) or give the kubeconfig of ${provider}`,
      );
    }
    return text;
  });
}

/** The waiting setup of a component, or undefined with `wait: false`. */
export function waiting(args: SharedArgs, parent: pulumi.Resource): Waiting | undefined {
  if (args.wait === false) return undefined;
  checkWaitTimeouts(args.waitTimeouts);
  return connection(args, parent, true);
}

/**
 * Cluster access for what runs whether or not the component waits (an uninstall on destroy), so that
 * turning waiting off does not delete it: as `waiting` finds it, and with `wait: false` the kubeconfig
 * given or found, if any.
 */
export function clusterAccess(args: SharedArgs, parent: pulumi.Resource): Waiting | undefined {
  if (args.wait !== false) return waiting(args, parent);
  return connection(args, parent, false);
}
