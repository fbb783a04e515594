/**
 * The MCO's MachineSet boot image controller (openshift/machine-config-operator
 * pkg/controller/bootimage) with the operator's part that decides which MachineSets it manages
 * (pkg/operator/sync.go, syncManagedBootImagesStatus).
 *
 * Which MachineSets it manages is primitives/boot-images.ts (written to `status.managedBootImagesStatus`
 * as the operator does). On AWS (platform_helpers.go reconcileAWSProviderSpec) a MachineSet without `ami.id` is skipped, and
 * so is one whose AMI is not a Red Hat one (detectAMIKind: unrecognised owner; here, an AMI that no
 * stream of this cluster ever published); otherwise its AMI is patched to the stream's AMI of the region
 * (`openshift-machine-config-operator/coreos-bootimages`). Azure images are not modelled.
 */
import { bootImageSelection, machineSetManagers } from "../../primitives/boot-images";
import { field } from "../../primitives/objects";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { WorkQueue } from "./workqueue";
import { K, isKind, keyOf } from "./util";

const NAMESPACE = "openshift-machine-api";
const STREAM = { name: "coreos-bootimages", namespace: "openshift-machine-config-operator" };

export function startBootImageController(ctx: ControllerContext): StopFn {
  // The machine-config-controller binary runs the boot image controller; the operator writes the status.
  const controller = ctx.writer("machine-config-controller");
  const operator = ctx.writer("machine-config-operator");
  const queue = new WorkQueue("boot-images", ctx.clock, () => sync());
  // The AMIs the cluster's streams published: Red Hat's, in this simulated cloud.
  const published = new Set<string>();

  function streamAmi(): string | undefined {
    const cm = ctx.store.get(keyOf(K.configMap, STREAM.name, STREAM.namespace));
    const text = field<string>(cm, "data", "stream");
    if (!text) return undefined;
    const region = regionOf();
    const regions = field<Record<string, { image?: string }>>(
      JSON.parse(text) as KubeObject,
      "architectures",
      "x86_64",
      "images",
      "aws",
      "regions",
    );
    const ami = region ? regions?.[region]?.image : undefined;
    if (ami) published.add(ami);
    return ami;
  }

  const regionOf = () =>
    field<string>(
      ctx.store.get(keyOf(K.infrastructure, "cluster")),
      "status",
      "platformStatus",
      "aws",
      "region",
    );

  function sync(): void {
    const configuration = ctx.store.get(keyOf(K.machineConfiguration, "cluster"));
    if (!configuration) return;
    const managers = machineSetManagers(field(configuration, "spec", "managedBootImages"), ctx.platform);
    const status = field<unknown>(configuration, "status", "managedBootImagesStatus");
    if (JSON.stringify(status) !== JSON.stringify({ machineManagers: managers }))
      operator.mutate(
        keyOf(K.machineConfiguration, "cluster"),
        (o) => {
          o.status = { ...(o.status as object), managedBootImagesStatus: { machineManagers: managers } };
        },
        { subresource: "status" },
      );
    if (ctx.platform !== "aws") return;
    const target = streamAmi();
    if (!target) return;
    for (const ms of ctx.store.list(K.machineSet.apiVersion, K.machineSet.kind, { namespace: NAMESPACE })) {
      if (!bootImageSelection(managers, ms).updates) continue;
      const ami = field<string>(ms, "spec", "template", "spec", "providerSpec", "value", "ami", "id");
      if (ami === undefined || ami === target || !published.has(ami)) continue;
      controller.mutate(keyOf(K.machineSet, ms.metadata.name, NAMESPACE), (o) => {
        const value = field<Record<string, unknown>>(o, "spec", "template", "spec", "providerSpec", "value")!;
        value.ami = { ...(value.ami as object), id: target };
      });
    }
  }

  // Every stream the cluster had counts, the one at install included: read now and on each write.
  streamAmi();
  const unsubscribe = ctx.store.subscribe(({ object }) => {
    const stream = isKind(object, K.configMap) && object.metadata.name === STREAM.name;
    if (stream) streamAmi();
    if (stream || isKind(object, K.machineSet) || isKind(object, K.machineConfiguration))
      queue.add("cluster");
  });
  queue.add("cluster");
  return unsubscribe;
}
