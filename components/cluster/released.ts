/**
 * A patch of an object the cluster owns that gives back, once destroyed, what it took: its
 * PatchRelease reads the fields the patch writes before it first applies (and keeps them on the
 * object under the patch's field manager, when given), and puts back the earlier values its release
 * removed (provider/waiting/release.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import type { PatchTarget } from "../../provider/waiting/release";
import { PatchRelease } from "../../provider/dynamic/patch-release";
import { child } from "../declared";
import type { Waiting } from "./wait";

/**
 * The options of a patch named `patch` with its release: declared before the patch, which depends on
 * it, so that Pulumi deletes it after the patch, once the patch was released. One release per patch:
 * a patch switched off is deleted alone, after its release's last update, so only a release deleted
 * with it can give back what it took. Without cluster access, the patch alone.
 */
export function released(
  cluster: Waiting | undefined,
  patch: string,
  write: { target: pulumi.Output<PatchTarget>; paths: pulumi.Output<string[][]>; fieldManager?: string },
  after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
  kopts: pulumi.CustomResourceOptions,
): pulumi.CustomResourceOptions {
  const release =
    cluster &&
    child(
      PatchRelease,
      `${patch}-release`,
      { kubeconfig: cluster.kubeconfig, ...write },
      cluster.options(after),
    );
  return {
    ...kopts,
    dependsOn: release ? pulumi.all([after, release]).apply(([a, r]) => [...a, r]) : after,
  };
}
