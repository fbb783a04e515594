import { createPrivateKey } from "node:crypto";
import { collectErrors, InputError } from "../errors";
import { MachineSetPoolSpec, platformModule } from "../machineset";
import { requireDnsSubdomain, requireOneOf } from "../validation";

/** Windows Server builds WMCO supports, by the `node.kubernetes.io/windows-build` label they carry. */
export const WINDOWS_BUILDS = {
  "2019": "10.0.17763",
  "2022": "10.0.20348",
  "2025": "10.0.26100",
} as const;
export type WindowsServerVersion = keyof typeof WINDOWS_BUILDS;
export type WindowsBuild = (typeof WINDOWS_BUILDS)[WindowsServerVersion];

/** Container runtime handlers: containerd's today, Docker's in the 4.6-era docs (Windows Container Support for OpenShift 4.6). */
export const WINDOWS_RUNTIME_HANDLERS = ["runhcs-wcow-process", "docker"] as const;
export type WindowsRuntimeHandler = (typeof WINDOWS_RUNTIME_HANDLERS)[number];

export const WMCO = {
  namespace: "openshift-windows-machine-config-operator",
  packageName: "windows-machine-config-operator",
  channel: "stable",
  privateKeySecret: "cloud-private-key",
  privateKeyField: "private-key.pem",
  userDataSecret: "windows-user-data",
  versionAnnotation: "windowsmachineconfig.openshift.io/version",
} as const;

export function requireWindowsBuild(path: string, value: unknown): WindowsBuild {
  const builds = Object.values(WINDOWS_BUILDS) as string[];
  if (typeof value === "string" && value in WINDOWS_BUILDS) {
    return WINDOWS_BUILDS[value as WindowsServerVersion];
  }
  if (typeof value === "string" && builds.includes(value)) return value as WindowsBuild;
  throw new InputError(
    path,
    `${JSON.stringify(value)} is not a Windows Server build WMCO supports: use ${Object.entries(
      WINDOWS_BUILDS,
    )
      .map(([v, b]) => `"${b}" (${v})`)
      .join(", ")} or the year`,
  );
}

export interface WindowsRuntimeClassArgs {
  name: string;
  build: string;
  handler?: WindowsRuntimeHandler;
}

/** A RuntimeClass that schedules pods onto Windows nodes of one build and tolerates their taint. */
export function windowsRuntimeClass(args: WindowsRuntimeClassArgs) {
  // Every field is checked, and every problem reported at once.
  const [name, handler, build] = collectErrors([
    () => requireDnsSubdomain("name", args.name),
    () => requireOneOf("handler", args.handler ?? "runhcs-wcow-process", WINDOWS_RUNTIME_HANDLERS),
    () => requireWindowsBuild("build", args.build),
  ]);
  return {
    apiVersion: "node.k8s.io/v1" as const,
    kind: "RuntimeClass" as const,
    metadata: { name },
    handler,
    scheduling: {
      nodeSelector: {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "windows",
        "node.kubernetes.io/windows-build": build,
      },
      tolerations: [{ effect: "NoSchedule", key: "os", operator: "Equal", value: "Windows" }],
    },
  };
}

/**
 * Turns a pool spec into a Windows one: machines labelled os-id Windows (what WMCO watches for), booted
 * with the user data WMCO creates, joining as workers; the rest is the platform's (on Azure the OS disk
 * says Windows and names are held to 9 characters).
 */
export function windowsPoolSpec<S extends MachineSetPoolSpec>(spec: S): S {
  const windows = platformModule("platform", spec.platform).windows;
  const options = (spec as unknown as Record<string, object>)[spec.platform];
  const userDataSecret = { name: WMCO.userDataSecret, namespace: "openshift-machine-api" };
  const name = windows.machineSetName;
  return {
    ...spec,
    machineRole: "worker",
    roleLabelsOnSet: false,
    machineLabels: { ...(spec.machineLabels ?? {}), "machine.openshift.io/os-id": "Windows" },
    nodeLabels: { ...(spec.nodeLabels ?? {}), "node-role.kubernetes.io/worker": "" },
    ...(windows.maxNameLength !== undefined ? { maxNameLength: windows.maxNameLength } : {}),
    ...(name ? { machineSetName: (zone: string) => name(spec.role, zone) } : {}),
    [spec.platform]: (windows.options as (o: object, s: object) => object)(options, userDataSecret),
  };
}

/** Checks that `pem` is an RSA private key in PEM form, the only kind WMCO can use to reach its VMs. */
export function requireRsaPrivateKeyPem(path: string, pem: unknown): string {
  const reason =
    'must be an RSA private key in PEM form ("-----BEGIN RSA PRIVATE KEY-----" or PKCS#8 "-----BEGIN PRIVATE KEY-----")';
  if (typeof pem === "string" && /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem)) {
    throw new InputError(
      path,
      `${reason}, without a passphrase: this key is encrypted, and WMCO cannot unlock it (decrypt it first, e.g. with "openssl pkey -in key.pem -out plain.pem")`,
    );
  }
  if (typeof pem !== "string" || !/-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem))
    throw new InputError(path, reason);
  let type: string | undefined;
  try {
    type = createPrivateKey({ key: pem, format: "pem" }).asymmetricKeyType;
  } catch {
    throw new InputError(path, `${reason}; this one could not be parsed`);
  }
  if (type !== "rsa") throw new InputError(path, `${reason}; this one is a ${type} key`);
  return pem;
}
