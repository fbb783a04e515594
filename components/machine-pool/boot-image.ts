/**
 * Who keeps a pool's boot image current: the MCO (its managed boot images update the MachineSets'
 * image on each release; the stack writes the image at creation only, as it leaves autoscaled replicas
 * to the autoscaler) or the stack (it declares the image on every `up`, and labels the MachineSets so
 * that a `Partial` selection of the MCO leaves them out). At preview, each MachineSet says which, and
 * whether the cluster's MCO agrees.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  BOOT_IMAGE_OWNER_LABEL,
  bootImageSelection,
  MachineManager,
  machineSetManagers,
  MANAGED_EXCEPT_STACK_OWNED,
} from "../../primitives/boot-images";
import { InputError } from "../../builders/errors";
import type { KubeObject } from "../../provider/waiting/kinds";
import { clusterOfThisRun } from "../cluster/preview-run";
import { noteMachineSets } from "./machine-set-notes";

export type BootImageOwner = "mco" | "stack";

/** The image fields of a MachineSet's provider spec: AWS `ami`, Azure `image`. */
const BOOT_IMAGE_FIELDS = ["ami", "image"];

/** Their paths in a MachineSet, as `ignoreChanges` takes them. */
export const BOOT_IMAGE_PATHS = BOOT_IMAGE_FIELDS.map((f) => `spec.template.spec.providerSpec.value.${f}`);

/** `bootImageOwner` as given, or by default the MCO unless the pool gives its own image. */
export function bootImageOwnerOf(given: unknown, imageGiven: boolean): BootImageOwner {
  if (given === undefined) return imageGiven ? "stack" : "mco";
  if (given === "mco" || given === "stack") return given;
  throw new InputError(
    "bootImageOwner",
    `must be "mco" (the MCO's managed boot images update it) or "stack" (the stack declares it), got ${JSON.stringify(given)}`,
  );
}

/** The manifest as the owner wants it: a stack-owned MachineSet carries the label a Partial selection excludes. */
export function withBootImageOwner<T extends { metadata: { labels?: Record<string, string> } }>(
  manifest: T,
  owner: BootImageOwner,
): T {
  if (owner === "mco") return manifest;
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      labels: { ...manifest.metadata.labels, [BOOT_IMAGE_OWNER_LABEL]: "stack" },
    },
  };
}

/** The manifest without the image the MCO owns: what a waiter's content hash may depend on. */
export function withoutBootImage<T extends object>(manifest: T, owner: BootImageOwner | undefined): T {
  if (owner !== "mco") return manifest;
  const copy = structuredClone(manifest) as T & MachineSetManifest;
  const value = copy.spec.template.spec.providerSpec.value;
  delete value.ami;
  delete value.image;
  return copy;
}

interface MachineSetManifest {
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: { providerSpec: { value: Record<string, unknown> } };
    };
  };
}

/** An AMI id; an Azure image by resource ID, else as the Azure CLI names a marketplace image (`publisher:offer:sku:version`). */
const imageOf = (m: MachineSetManifest) => {
  const value = m.spec.template.spec.providerSpec.value;
  const ami = (value.ami as { id?: string } | undefined)?.id;
  if (ami) return ami;
  const image = (value.image ?? {}) as Partial<
    Record<"resourceID" | "publisher" | "offer" | "sku" | "version", string>
  >;
  return image.resourceID || [image.publisher, image.offer, image.sku, image.version].join(":");
};

/** The preview's line for one MachineSet, and whether it is a warning. */
export function bootImageLine(
  manifest: MachineSetManifest,
  owner: BootImageOwner,
  managers: MachineManager[] | undefined,
): { text: string; warn: boolean } {
  const name = `MachineSet ${manifest.metadata.name}`;
  const image = imageOf(manifest);
  if (!managers) {
    return owner === "mco"
      ? {
          text: `${name}: boot image ${image} at creation, then left to the MCO (bootImageOwner "mco")`,
          warn: false,
        }
      : { text: `${name}: boot image ${image} declared by the stack (bootImageOwner "stack")`, warn: false };
  }
  const { updates, why } = bootImageSelection(managers, manifest);
  if (owner === "mco" && updates)
    return { text: `${name}: boot image ${image} at creation, then the MCO's (${why})`, warn: false };
  if (owner === "mco")
    return {
      text: `${name}: boot image left to the MCO (bootImageOwner "mco"), but the MCO does not update it (${why}): it stays ${image}`,
      warn: true,
    };
  if (!updates)
    return {
      text: `${name}: boot image ${image} declared by the stack; the MCO leaves it alone (${why})`,
      warn: false,
    };
  return {
    text: `${name}: boot image ${image} declared by the stack, but the MCO updates it too (${why}): each up would undo its update; leave the stack's MachineSets out: kubectl patch machineconfiguration cluster --type=merge -p '${JSON.stringify({ spec: { managedBootImages: MANAGED_EXCEPT_STACK_OWNED } })}'`,
    warn: true,
  };
}

/**
 * At preview, logs on `parent` who owns each MachineSet's boot image, asking the cluster whether the MCO
 * agrees: said for a new or changed MachineSet, and whenever it is a warning (machine-set-notes.ts).
 */
export async function previewBootImages(
  parent: pulumi.Resource,
  kubeconfig: string | undefined,
  platform: string,
  manifests: MachineSetManifest[],
  owner: BootImageOwner,
): Promise<void> {
  let managers: MachineManager[] | undefined;
  if (kubeconfig) {
    const cluster = clusterOfThisRun(kubeconfig);
    if ((await cluster.unreachableBecause()) === undefined) {
      try {
        const configuration = (await cluster.machineConfiguration()) as KubeObject | undefined;
        const status = (
          configuration?.status as { managedBootImagesStatus?: { machineManagers?: MachineManager[] } }
        )?.managedBootImagesStatus?.machineManagers;
        // A cluster without the MachineConfiguration predates managed boot images.
        managers = !configuration
          ? []
          : (status ??
            machineSetManagers(
              (configuration.spec as { managedBootImages?: never } | undefined)?.managedBootImages,
              platform,
            ));
      } catch (e) {
        // A failed read is no answer: the lines then say only what the stack does.
        pulumi.log.warn(`MCO-managed boot images unknown: ${(e as Error).message}`, parent);
      }
    }
  }
  // News for a new MachineSet, or one whose image the stack changes (the MCO's updates are its own).
  const fields = owner === "stack" ? BOOT_IMAGE_FIELDS : [];
  const notes = manifests.map((machineSet) => ({
    machineSet,
    fields,
    ...bootImageLine(machineSet, owner, managers),
  }));
  await noteMachineSets(parent, kubeconfig, notes);
}
