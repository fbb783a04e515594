/**
 * The operators OLM installs, as far as their custom resources go: an operator that puts a finalizer on
 * its instances (the local-storage operator's `storage.openshift.com/local-volume-protection` on a
 * LocalVolume) adds it while it runs and removes it once it has cleaned up after a deleted instance. An
 * operator that no longer runs (its CSV gone or not Succeeded) removes nothing: an instance deleted
 * after its operator stays Terminating, which is why uninstalling deletes instances first.
 */
import { field } from "../../primitives/objects";
import { OWNED_CRDS } from "../cluster/bundles";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { K } from "./util";
import { WorkQueue } from "./workqueue";

interface Operand {
  pkg: string;
  group: string;
  kind: string;
  finalizer: string;
}

const OPERANDS: Operand[] = Object.entries(OWNED_CRDS).flatMap(([pkg, owned]) =>
  owned
    .filter((o) => o.finalizer)
    .map((o) => {
      const spec = o.definition.spec as { group: string; names: { kind: string } };
      return { pkg, group: spec.group, kind: spec.names.kind, finalizer: o.finalizer! };
    }),
);

const groupOf = (apiVersion: string) => apiVersion.split("/")[0];

export function startOperands(ctx: ControllerContext): StopFn {
  const { clock, delays } = ctx;
  const queue = new WorkQueue("operands", clock, (key) =>
    sync(JSON.parse(key) as { apiVersion: string; kind: string; name: string; namespace?: string }),
  );
  const writers = new Map<string, ReturnType<ControllerContext["writer"]>>();
  const writer = (pkg: string) => {
    if (!writers.has(pkg)) writers.set(pkg, ctx.writer(pkg));
    return writers.get(pkg)!;
  };
  const operandOf = (o: KubeObject) =>
    OPERANDS.find((p) => p.kind === o.kind && p.group === groupOf(o.apiVersion));
  /** Whether a CSV of the package runs: Succeeded (its Deployments available). */
  const running = (pkg: string) =>
    ctx.store
      .list(K.csv.apiVersion, K.csv.kind)
      .some(
        (c) =>
          c.metadata.name.startsWith(`${pkg}.v`) &&
          field(c, "status", "phase") === "Succeeded" &&
          !c.metadata.deletionTimestamp,
      );

  function sync(ref: { apiVersion: string; kind: string; name: string; namespace?: string }): void {
    const object = ctx.store.get(ref);
    const operand = object && operandOf(object);
    if (!object || !operand || !running(operand.pkg)) return;
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp === undefined) {
      if (!finalizers.includes(operand.finalizer))
        writer(operand.pkg).mutate(ref, (o) => (o.metadata.finalizers = [...finalizers, operand.finalizer]));
      return;
    }
    if (!finalizers.includes(operand.finalizer)) return;
    // Cleaning up (the provisioner's daemon set, the volumes) takes an operator step.
    clock.after(delays.olmStep, () => {
      const live = ctx.store.get(ref);
      if (!live || !running(operand.pkg)) return;
      writer(operand.pkg).mutate(ref, (o) => {
        o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== operand.finalizer);
      });
    });
  }

  const enqueue = (o: KubeObject) =>
    queue.add(
      JSON.stringify({
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: o.metadata.name,
        namespace: o.metadata.namespace,
      }),
    );
  const unsubscribe = ctx.store.subscribe(({ type, object }) => {
    if (type !== "DELETED" && operandOf(object)) enqueue(object);
    // An operator that starts (or starts again) takes care of the instances waiting for it.
    if (object.kind === K.csv.kind && field(object, "status", "phase") === "Succeeded")
      for (const operand of OPERANDS.filter((p) => object.metadata.name.startsWith(`${p.pkg}.v`)))
        for (const crd of ctx.store.list(K.crd.apiVersion, K.crd.kind))
          if (
            field(crd, "spec", "names", "kind") === operand.kind &&
            field(crd, "spec", "group") === operand.group
          )
            for (const v of (
              field<Array<{ name: string; storage?: boolean }>>(crd, "spec", "versions") ?? []
            ).filter((x) => x.storage))
              for (const o of ctx.store.list(`${operand.group}/${v.name}`, operand.kind)) enqueue(o);
  });
  return unsubscribe;
}
