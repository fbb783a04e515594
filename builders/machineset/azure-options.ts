import { collectErrors, InputError } from "../errors";
import { requireBoolean, requireNonEmptyString, requireOneOf } from "../validation";
import { AzureMachineProviderSpec } from "./provider-spec";

export const AZURE_SECURITY_TYPES = ["TrustedLaunch", "ConfidentialVM"] as const;
export const AZURE_CONFIDENTIAL_ENCRYPTION = ["VMGuestStateOnly", "DiskWithVMGuestState"] as const;
const ENABLED_DISABLED = ["Enabled", "Disabled"] as const;

/**
 * Azure machine options beyond the installer's defaults, as the installer's and hive's Azure machine
 * pools expose them, rendered into openshift/api's AzureMachineProviderSpec fields.
 */
export interface AzureVmOptions {
  /**
   * Spot VMs: `true` or `{ maxPrice }` (USD per hour as a decimal string, or "-1" for up to the
   * on-demand price, the default). Azure evicts them when it needs the capacity or the price rises
   * above maxPrice; the machine-api then deletes the Machine and its MachineSet creates a new one.
   */
  spotVMOptions?: true | { maxPrice?: string };
  acceleratedNetworking?: boolean;
  /** Lets the VMs attach Ultra SSD data disks. */
  ultraSSDCapability?: (typeof ENABLED_DISABLED)[number];
  /** Encrypts temp disks and caches on the host; not with ConfidentialVM's DiskWithVMGuestState. */
  encryptionAtHost?: boolean;
  /** Trusted launch or confidential VMs (Gen2 images and VM sizes that support them). */
  security?: {
    type: (typeof AZURE_SECURITY_TYPES)[number];
    secureBoot?: (typeof ENABLED_DISABLED)[number];
    virtualizedTrustedPlatformModule?: (typeof ENABLED_DISABLED)[number];
    /** ConfidentialVM only: what the OS disk's encryption covers. Default VMGuestStateOnly. */
    confidentialDiskEncryption?: (typeof AZURE_CONFIDENTIAL_ENCRYPTION)[number];
  };
  /** Boot diagnostics: kept by Azure, or in your storage account (its blob endpoint URI). */
  bootDiagnostics?: "AzureManaged" | { storageAccountURI: string };
  /** An existing availability set, for regions without zones (default: the machine-api makes one per MachineSet). */
  availabilitySet?: string;
  /** Azure tags on the VMs and their disks and NICs, beside the cluster's own. */
  tags?: Record<string, string>;
}

const SPOT_PRICE = /^(-1|[0-9]+(\.[0-9]+)?)$/;

/** Every problem of each option at once; combinations are admission's (admission.ts). */
export function checkAzureVmOptions(options: AzureVmOptions): void {
  const spot = options.spotVMOptions;
  const security = options.security;
  collectErrors([
    () => {
      if (spot === undefined || spot === true) return;
      if (typeof spot !== "object" || spot === null)
        throw new InputError("spotVMOptions", "use true or { maxPrice }");
      if (
        spot.maxPrice !== undefined &&
        (typeof spot.maxPrice !== "string" || !SPOT_PRICE.test(spot.maxPrice) || Number(spot.maxPrice) === 0)
      ) {
        throw new InputError(
          "spotVMOptions.maxPrice",
          `${JSON.stringify(spot.maxPrice)} is not a price: use a positive decimal number of USD per hour as a string, e.g. "0.05", or "-1" for up to the on-demand price`,
        );
      }
    },
    () =>
      options.acceleratedNetworking !== undefined &&
      requireBoolean("acceleratedNetworking", options.acceleratedNetworking),
    () =>
      options.ultraSSDCapability !== undefined &&
      requireOneOf("ultraSSDCapability", options.ultraSSDCapability, ENABLED_DISABLED),
    () =>
      options.encryptionAtHost !== undefined && requireBoolean("encryptionAtHost", options.encryptionAtHost),
    () => {
      if (!security) return;
      collectErrors([
        () => requireOneOf("security.type", security.type, AZURE_SECURITY_TYPES),
        () =>
          security.secureBoot !== undefined &&
          requireOneOf("security.secureBoot", security.secureBoot, ENABLED_DISABLED),
        () =>
          security.virtualizedTrustedPlatformModule !== undefined &&
          requireOneOf(
            "security.virtualizedTrustedPlatformModule",
            security.virtualizedTrustedPlatformModule,
            ENABLED_DISABLED,
          ),
        () => {
          if (security.confidentialDiskEncryption === undefined) return;
          requireOneOf(
            "security.confidentialDiskEncryption",
            security.confidentialDiskEncryption,
            AZURE_CONFIDENTIAL_ENCRYPTION,
          );
          if (security.type !== "ConfidentialVM") {
            throw new InputError("security.confidentialDiskEncryption", "applies to ConfidentialVM only");
          }
        },
      ]);
    },
    () => {
      const diag = options.bootDiagnostics;
      if (diag === undefined || diag === "AzureManaged") return;
      if (typeof diag !== "object" || diag === null || !/^https:\/\/.+/.test(diag.storageAccountURI ?? "")) {
        throw new InputError(
          "bootDiagnostics",
          'use "AzureManaged" or { storageAccountURI: "https://<account>.blob.core.windows.net/" }',
        );
      }
    },
    () =>
      options.availabilitySet !== undefined &&
      requireNonEmptyString("availabilitySet", options.availabilitySet),
    () =>
      Object.entries(options.tags ?? {}).forEach(([k, v]) => {
        if (!k || k.length > 512 || /[<>%&\\?/]/.test(k) || typeof v !== "string" || v.length > 256) {
          throw new InputError(
            `tags["${k}"]`,
            "Azure tag names are 1-512 characters without < > % & \\ ? /, values at most 256 characters",
          );
        }
      }),
  ]);
}

function securityProfile(options: AzureVmOptions): AzureMachineProviderSpec["securityProfile"] | undefined {
  const s = options.security;
  if (!s && options.encryptionAtHost === undefined) return undefined;
  const confidential = s?.type === "ConfidentialVM";
  // What the webhook requires of a confidential VM is its default: vTPM on, and secure boot on when
  // the OS disk's encryption covers the disk (validateAzureSecurityProfile).
  const secureBoot =
    s?.secureBoot ??
    (confidential && s?.confidentialDiskEncryption === "DiskWithVMGuestState" ? "Enabled" : undefined);
  const vTPM = s?.virtualizedTrustedPlatformModule ?? (confidential ? "Enabled" : undefined);
  const uefi = {
    ...(secureBoot ? { secureBoot } : {}),
    ...(vTPM ? { virtualizedTrustedPlatformModule: vTPM } : {}),
  };
  return {
    ...(options.encryptionAtHost !== undefined ? { encryptionAtHost: options.encryptionAtHost } : {}),
    ...(s
      ? {
          settings:
            s.type === "ConfidentialVM"
              ? { confidentialVM: { uefiSettings: uefi }, securityType: s.type }
              : { securityType: s.type, trustedLaunch: { uefiSettings: uefi } },
        }
      : {}),
  };
}

/** The provider-spec fields these options set, checked; `spec` is the installer-default spec. */
export function withAzureVmOptions(
  spec: AzureMachineProviderSpec,
  options: AzureVmOptions,
): AzureMachineProviderSpec {
  checkAzureVmOptions(options);
  const spot = options.spotVMOptions;
  const profile = securityProfile(options);
  const diag = options.bootDiagnostics;
  const confidential = options.security?.type === "ConfidentialVM";
  return {
    ...spec,
    ...(options.acceleratedNetworking !== undefined
      ? { acceleratedNetworking: options.acceleratedNetworking }
      : {}),
    ...(options.availabilitySet ? { availabilitySet: options.availabilitySet } : {}),
    ...(diag
      ? {
          diagnostics: {
            boot:
              diag === "AzureManaged"
                ? { storageAccountType: "AzureManaged" }
                : {
                    customerManaged: { storageAccountURI: diag.storageAccountURI },
                    storageAccountType: "CustomerManaged",
                  },
          },
        }
      : {}),
    osDisk: confidential
      ? {
          ...spec.osDisk,
          managedDisk: {
            ...spec.osDisk.managedDisk,
            securityProfile: {
              securityEncryptionType: options.security!.confidentialDiskEncryption ?? "VMGuestStateOnly",
            },
          },
        }
      : spec.osDisk,
    ...(profile ? { securityProfile: profile } : {}),
    ...(options.tags && Object.keys(options.tags).length > 0
      ? { tags: Object.fromEntries(Object.entries(options.tags).sort(([a], [b]) => (a < b ? -1 : 1))) }
      : {}),
    ...(spot
      ? { spotVMOptions: spot === true || spot.maxPrice === undefined ? {} : { maxPrice: spot.maxPrice } }
      : {}),
    ...(options.ultraSSDCapability ? { ultraSSDCapability: options.ultraSSDCapability } : {}),
  };
}
