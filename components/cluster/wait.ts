import * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inputPropertyError } from "../errors";

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
   */
  kubeconfig?: pulumi.Input<string>;
  /** Deadlines of the waits (`create`, `update`, `delete`, e.g. "45m"); default 30 minutes each. */
  waitTimeouts?: pulumi.CustomTimeouts;
}

export interface Waiting {
  kubeconfig: pulumi.Output<string>;
  /** Options for a waiter: its parent, what it waits after, and the deadlines. */
  options(dependsOn: pulumi.Input<pulumi.Input<pulumi.Resource>[]>): pulumi.CustomResourceOptions;
}

function ambientKubeconfig(): string {
  const file =
    (process.env.KUBECONFIG ?? "").split(path.delimiter).find((f) => f !== "") ??
    path.join(os.homedir(), ".kube", "config");
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    throw inputPropertyError(
      "kubeconfig",
      `waiting for the cluster needs its kubeconfig: pass kubeconfig, point $KUBECONFIG at it (${file} could not be read), or set wait: false`,
    );
  }
}

/** The waiting setup of a component, or undefined with `wait: false`. */
export function waiting(args: WaitArgs, parent: pulumi.Resource): Waiting | undefined {
  if (args.wait === false) return undefined;
  const kubeconfig = pulumi.secret(args.kubeconfig ?? ambientKubeconfig());
  return {
    kubeconfig,
    options: (dependsOn) => ({
      parent,
      dependsOn,
      ...(args.waitTimeouts ? { customTimeouts: args.waitTimeouts } : {}),
    }),
  };
}
