/**
 * The MCO's MachineSet boot image controller (openshift/machine-config-operator
 * pkg/controller/bootimage) with the operator's part that decides which MachineSets it manages
 * (pkg/operator/sync.go, syncManagedBootImagesStatus). Its rules are read from that code here, apart
 * from the library's preview (primitives/boot-images.ts), so that a test of the one checks the other.
 *
 * - Which platforms are opted in by default: common/featuregates.go CheckBootImagePlatform (AWS, GCP,
 *   vSphere, Azure except AzureStackCloud).
 * - Which MachineSets are enrolled: bootimage/helpers.go getMachineResourceSelectorFromMachineManagers
 *   on the status' machine-api MachineSet manager (All, None, Partial's selector; no manager: none).
 * - Which are skipped: ms_helpers.go syncMAPIMachineSet (an owner reference, an OS stream label other
 *   than rhel-9, Windows machines).
 * - What is patched: platform_helpers.go reconcileAWSProviderSpec (the stream's AMI of the MachineSet's
 *   region, only over an AMI id Red Hat published: here, one a stream of this cluster named) and
 *   reconcileAzureProviderSpec (the stream's marketplace image of the variant the current image is,
 *   an image uploaded at install moved to the unpaid marketplace one; skipped with a security type).
 */
import { field } from "../../primitives/objects";
import { LabelSelector, selectorMatches } from "../../primitives/selectors";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { WorkQueue } from "./workqueue";
import { K, isKind, keyOf } from "./util";

const NAMESPACE = "openshift-machine-api";
const STREAM = { name: "coreos-bootimages", namespace: "openshift-machine-config-operator" };
/** boot_image_controller.go OSStreamLabelKey, SupportedOSStream, OSLabelKey. */
const OS_STREAM_LABEL = "machineconfiguration.openshift.io/osstream";
const SUPPORTED_OS_STREAM = "rhel-9";
const OS_LABEL = "machine.openshift.io/os-id";

interface Manager {
  resource: string;
  apiGroup: string;
  selection: { mode: string; partial?: { machineResourceSelector?: LabelSelector } };
}

const isMapiMachineSets = (m: Manager) =>
  m.apiGroup === "machine.openshift.io" && m.resource === "machinesets";

/** featuregates.go CheckBootImagePlatform: enabledByDefault. */
function defaultOn(infrastructure: KubeObject | undefined): boolean {
  const status = field<{ type?: string; azure?: { cloudName?: string } }>(
    infrastructure,
    "status",
    "platformStatus",
  );
  if (status?.type === "Azure") return status.azure?.cloudName !== "AzureStackCloud";
  return ["AWS", "GCP", "VSphere"].includes(status?.type ?? "");
}

/**
 * sync.go syncManagedBootImagesStatus, for machine-api MachineSets: an empty list in the spec is copied
 * (opted out); else the spec's MachineSet manager, else `All` where the platform is opted in by
 * default, else `None`.
 */
export function managedBootImagesStatus(
  spec: { machineManagers?: Manager[] } | undefined,
  infrastructure: KubeObject | undefined,
): { machineManagers: Manager[] } {
  const given = spec?.machineManagers;
  if (given !== undefined && given.length === 0) return { machineManagers: [] };
  const own = given?.find(isMapiMachineSets);
  const mode = defaultOn(infrastructure) ? "All" : "None";
  return {
    machineManagers: [
      own ?? { resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode } },
    ],
  };
}

/** helpers.go getMachineResourceSelectorFromMachineManagers, applied to one MachineSet. */
function enrolled(managers: Manager[], ms: KubeObject): boolean {
  const manager = managers.find(isMapiMachineSets);
  if (manager?.selection.mode === "All") return true;
  if (manager?.selection.mode !== "Partial") return false;
  // LabelSelectorAsSelector(nil) selects nothing.
  const selector = manager.selection.partial?.machineResourceSelector;
  return !!selector && selectorMatches(selector, ms.metadata.labels ?? {});
}

/** ms_helpers.go syncMAPIMachineSet: the MachineSets it leaves before looking at the platform. */
function skipped(ms: KubeObject): boolean {
  if ((ms.metadata.ownerReferences ?? []).length > 0) return true;
  const stream = ms.metadata.labels?.[OS_STREAM_LABEL];
  if (stream !== undefined && stream !== SUPPORTED_OS_STREAM) return true;
  return field<string>(ms, "spec", "template", "metadata", "labels", OS_LABEL) === "Windows";
}

type Stream = Record<string, unknown>;
type ProviderSpec = Record<string, unknown>;

/**
 * Per platform, the provider spec's new image fields, or undefined to leave it. `published` holds the
 * AMIs of every stream this cluster had, which tells a Red Hat AMI from the user's own (detectAMIKind
 * asks EC2 for the AMI's owner).
 */
const reconcilers: Record<
  string,
  (stream: Stream, spec: ProviderSpec, published: Set<string>) => ProviderSpec | undefined
> = {
  aws(stream, spec, published) {
    const ami = field<string>(spec, "ami", "id");
    if (ami === undefined || !published.has(ami)) return undefined;
    const region = field<string>(spec, "placement", "region");
    const target = region
      ? field<string>(stream, "architectures", "x86_64", "images", "aws", "regions", region, "image")
      : undefined;
    return target === undefined || target === ami ? undefined : { ami: { id: target } };
  },
  azure(stream, spec) {
    if (field<string>(spec, "securityProfile", "settings", "securityType")) return undefined;
    const image = (spec.image ?? {}) as Record<string, string>;
    const variant = azureVariant(image);
    if (!variant) return undefined;
    const marketplace = field<Record<string, Record<string, Record<string, string>>>>(
      stream,
      "architectures",
      "x86_64",
      "rhel-coreos-extensions",
      "marketplace",
      "azure",
    );
    // Gen2 unless the image says Gen1: "gen2" in an uploaded image's ID, "v2" in an unpaid SKU,
    // anything but "-gen1" in a paid one.
    const gen2 = image.resourceID
      ? image.resourceID.includes("gen2")
      : image.type === "MarketplaceNoPlan"
        ? (image.sku ?? "").includes("v2")
        : !(image.sku ?? "").includes("gen1");
    const chosen = marketplace?.[variant]?.[gen2 ? "hyperVGen2" : "hyperVGen1"];
    if (!chosen) return undefined;
    const target = {
      offer: chosen.offer,
      publisher: chosen.publisher,
      resourceID: "",
      sku: chosen.sku,
      version: chosen.version,
      type: variant === "no-purchase-plan" ? "MarketplaceNoPlan" : "MarketplaceWithPlan",
    };
    // reflect.DeepEqual on machinev1beta1.Image: a field left out is "".
    const same = (Object.keys(target) as Array<keyof typeof target>).every(
      (k) => (image[k] ?? "") === target[k],
    );
    return same ? undefined : { image: target };
  },
};

/**
 * platform_helpers.go determineAzureVariant: the stream's marketplace entry the image belongs to. An
 * uploaded image (a resource ID) and ARO's `azureopenshift` ones take the unpaid images; paid ones are
 * known by publisher and offer; any other image is not the MCO's to update (upstream errors, and
 * reports the controller degraded).
 */
function azureVariant(image: Record<string, string>): string | undefined {
  if (image.resourceID || image.publisher === "azureopenshift") return "no-purchase-plan";
  const product = /^rh-(ocp|opp|oke)-worker$/.exec(image.offer ?? "")?.[1];
  if (!product) return undefined;
  if (image.publisher === "redhat") return product;
  return image.publisher === "redhat-limited" ? `${product}-emea` : undefined;
}

export function startBootImageController(ctx: ControllerContext): StopFn {
  // The machine-config-controller binary runs the boot image controller; the operator writes the status.
  const controller = ctx.writer("machine-config-controller");
  const operator = ctx.writer("machine-config-operator");
  const queue = new WorkQueue("boot-images", ctx.clock, () => sync());
  const published = new Set<string>();

  function stream(): Stream | undefined {
    const text = field<string>(
      ctx.store.get(keyOf(K.configMap, STREAM.name, STREAM.namespace)),
      "data",
      "stream",
    );
    if (!text) return undefined;
    const parsed = JSON.parse(text) as Stream;
    const regions = field<Record<string, { image?: string }>>(
      parsed,
      "architectures",
      "x86_64",
      "images",
      "aws",
      "regions",
    );
    for (const r of Object.values(regions ?? {})) if (r.image) published.add(r.image);
    return parsed;
  }

  function sync(): void {
    const configuration = ctx.store.get(keyOf(K.machineConfiguration, "cluster"));
    if (!configuration) return;
    const infrastructure = ctx.store.get(keyOf(K.infrastructure, "cluster"));
    const status = managedBootImagesStatus(field(configuration, "spec", "managedBootImages"), infrastructure);
    if (JSON.stringify(field(configuration, "status", "managedBootImagesStatus")) !== JSON.stringify(status))
      operator.mutate(
        keyOf(K.machineConfiguration, "cluster"),
        (o) => {
          o.status = { ...(o.status as object), managedBootImagesStatus: status };
        },
        { subresource: "status" },
      );
    const reconcile = reconcilers[ctx.platform];
    const current = stream();
    if (!reconcile || !current) return;
    for (const ms of ctx.store.list(K.machineSet.apiVersion, K.machineSet.kind, { namespace: NAMESPACE })) {
      if (!enrolled(status.machineManagers, ms) || skipped(ms)) continue;
      const spec = field<ProviderSpec>(ms, "spec", "template", "spec", "providerSpec", "value") ?? {};
      const patch = reconcile(current, spec, published);
      if (!patch) continue;
      controller.mutate(keyOf(K.machineSet, ms.metadata.name, NAMESPACE), (o) => {
        Object.assign(field<ProviderSpec>(o, "spec", "template", "spec", "providerSpec", "value")!, patch);
      });
    }
  }

  // Every stream the cluster had counts, the one at install included: read now and on each write.
  stream();
  const unsubscribe = ctx.store.subscribe(({ object }) => {
    const isStream = isKind(object, K.configMap) && object.metadata.name === STREAM.name;
    if (isStream) stream();
    if (isStream || isKind(object, K.machineSet) || isKind(object, K.machineConfiguration))
      queue.add("cluster");
  });
  queue.add("cluster");
  return unsubscribe;
}
