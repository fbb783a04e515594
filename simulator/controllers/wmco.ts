/**
 * The Windows Machine Config Operator, active once its CSV has Succeeded: it needs secret
 * `cloud-private-key` (key `private-key.pem`) in its own namespace, publishes `windows-user-data` in
 * openshift-machine-api, and configures Provisioned Machines labelled `machine.openshift.io/os-id:
 * Windows` into Windows nodes. Without the key it cannot reach the VMs: the Machines stay Provisioned and
 * a Warning Event on each says why.
 */
import { field } from "../../primitives/objects";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { buildNode, isWindowsMachine, providerSpecOf } from "../cluster/machines";
import { cordon } from "./machine-api";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { Stepper, WorkQueue } from "./workqueue";
import { K, isKind, keyOf, recordEvent } from "./util";

export const WMCO_PACKAGE = "windows-machine-config-operator";
export const PRIVATE_KEY_SECRET = "cloud-private-key";
export const PRIVATE_KEY_FIELD = "private-key.pem";
export const USER_DATA_SECRET = "windows-user-data";
export const VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/version";
export const DESIRED_VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/desired-version";
export const PUB_KEY_HASH_ANNOTATION = "windowsmachineconfig.openshift.io/pub-key-hash";
const COMPONENT = "windows-machine-config-operator";

/** Windows Server builds by the image a MachineSet names (Azure SKU); AWS AMIs default to 2022. */
const WINDOWS_BUILDS: Array<[RegExp, string]> = [
  [/2019/, "10.0.17763"],
  [/2025/, "10.0.26100"],
  [/2022/, "10.0.20348"],
];

function windowsBuild(machine: KubeObject): string {
  const sku = String(field(providerSpecOf(machine), "image", "sku") ?? "");
  return WINDOWS_BUILDS.find(([re]) => re.test(sku))?.[1] ?? "10.0.20348";
}

/** OpenSSH `ssh-rsa` public key from a PEM private key, as WMCO authorizes it on the VMs. */
function authorizedKey(pem: string): { line: string; hash: string } {
  const publicKey = createPublicKey(createPrivateKey(pem));
  const jwk = publicKey.export({ format: "jwk" });
  let line: string;
  if (jwk.kty === "RSA" && jwk.n && jwk.e) {
    const mpint = (b64: string) => {
      let buf = Buffer.from(b64, "base64url");
      if (buf[0] & 0x80) buf = Buffer.concat([Buffer.from([0]), buf]);
      return buf;
    };
    const chunk = (b: Buffer) =>
      Buffer.concat([Buffer.from([0, 0, 0, 0].map((_, i) => (b.length >>> (24 - 8 * i)) & 0xff)), b]);
    line = `ssh-rsa ${Buffer.concat([chunk(Buffer.from("ssh-rsa")), chunk(mpint(jwk.e)), chunk(mpint(jwk.n))]).toString("base64")}`;
  } else {
    line = publicKey.export({ format: "pem", type: "spki" }).toString().trim();
  }
  return { line, hash: createHash("sha256").update(line).digest("hex") };
}

function userData(publicKey: string): string {
  return [
    "<powershell>",
    '$authorizedKeyConf = "$env:ProgramData\\ssh\\administrators_authorized_keys"',
    `$authorizedKey = "${publicKey}"`,
    "Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0",
    "Set-Content -Path $authorizedKeyConf -Value $authorizedKey",
    "Start-Service sshd; Set-Service -Name sshd -StartupType 'Automatic'",
    "</powershell>",
    "<persist>true</persist>",
    "",
  ].join("\n");
}

export function startWmco(ctx: ControllerContext): StopFn {
  const { clock, delays } = ctx;
  const store = ctx.writer("windows-machine-config-operator");
  const queue = new WorkQueue("wmco", clock, sync);
  const steps = new Stepper(queue, clock);
  const reported = new Set<string>();

  function operatorCsv(): KubeObject | undefined {
    return store
      .list(K.csv.apiVersion, K.csv.kind)
      .filter((c) => c.metadata.name.startsWith(`${WMCO_PACKAGE}.`) && !c.metadata.deletionTimestamp)
      .filter((c) => field(c, "status", "phase") === "Succeeded")
      .sort((a, b) =>
        String(field(b, "spec", "version")).localeCompare(String(field(a, "spec", "version")), undefined, {
          numeric: true,
        }),
      )[0];
  }

  /** The key WMCO signs in with, or the reason it cannot. */
  function privateKey(namespace: string): { key?: { line: string; hash: string }; problem?: string } {
    const secret = store.get(keyOf(K.secret, PRIVATE_KEY_SECRET, namespace));
    const where = `${namespace}/${PRIVATE_KEY_SECRET}`;
    if (!secret)
      return {
        problem: `unable to get signer from secret ${where}: secrets "${PRIVATE_KEY_SECRET}" not found`,
      };
    const b64 = field<string>(secret, "data", PRIVATE_KEY_FIELD);
    const text =
      b64 !== undefined
        ? Buffer.from(b64, "base64").toString()
        : field<string>(secret, "stringData", PRIVATE_KEY_FIELD);
    if (!text)
      return { problem: `unable to get signer from secret ${where}: key ${PRIVATE_KEY_FIELD} is missing` };
    try {
      return { key: authorizedKey(text) };
    } catch (error) {
      return {
        problem: `unable to get signer from secret ${where}: unable to parse private key: ${(error as Error).message}`,
      };
    }
  }

  function ensureUserData(publicKey: string): void {
    const data = { userData: Buffer.from(userData(publicKey)).toString("base64") };
    const key = keyOf(K.secret, USER_DATA_SECRET, MACHINE_API_NAMESPACE);
    const existing = store.get(key);
    if (!existing) {
      store.create({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: USER_DATA_SECRET, namespace: MACHINE_API_NAMESPACE },
        type: "Opaque",
        data,
      });
    } else if (field(existing, "data", "userData") !== data.userData) {
      store.mutate(key, (s) => (s.data = data));
    }
  }

  function report(machine: KubeObject, type: "Normal" | "Warning", reason: string, message: string): void {
    const id = `${machine.metadata.uid}/${reason}/${message}`;
    if (reported.has(id)) return;
    reported.add(id);
    recordEvent(store, clock.now(), machine, type, reason, message, COMPONENT);
  }

  /** Nodes WMCO cordoned to configure, which it uncordons once they run the version. */
  const configuring = new Set<string>();

  function sync(): void {
    const csv = operatorCsv();
    if (!csv) return;
    const namespace = csv.metadata.namespace ?? "";
    const version = String(field(csv, "spec", "version") ?? "");
    const { key, problem } = privateKey(namespace);
    if (key) ensureUserData(key.line);
    const nodes = store.list("v1", "Node");
    const machines = store
      .list(K.machine.apiVersion, K.machine.kind, { namespace: MACHINE_API_NAMESPACE })
      .filter((m) => isWindowsMachine(m) && !m.metadata.deletionTimestamp);
    for (const machine of machines) {
      const name = machine.metadata.name;
      const providerID = field<string>(machine, "spec", "providerID");
      const node = providerID ? nodes.find((n) => field(n, "spec", "providerID") === providerID) : undefined;
      if (node) {
        // nodeconfig.go Configure, one write per sync: cordon and announce the desired version, WICD
        // records the version once the services run (WaitForVersionAnnotation), then uncordon.
        const nodeKey = keyOf(K.node, node.metadata.name);
        const a = node.metadata.annotations ?? {};
        const cordoned = field(node, "spec", "unschedulable") === true;
        if (a[VERSION_ANNOTATION] === version) {
          if (cordoned && configuring.delete(node.metadata.name))
            store.mutate(nodeKey, (n) => cordon(n, false, clock.now()));
          continue;
        }
        if (!key) continue;
        if (a[DESIRED_VERSION_ANNOTATION] !== version || !configuring.has(node.metadata.name)) {
          configuring.add(node.metadata.name);
          store.mutate(nodeKey, (n) => {
            cordon(n, true, clock.now());
            n.metadata.annotations = {
              ...(n.metadata.annotations ?? {}),
              [DESIRED_VERSION_ANNOTATION]: version,
              [PUB_KEY_HASH_ANNOTATION]: key.hash,
            };
          });
        } else if (
          // A node just bootstrapped has spent its time already; an upgrade reconfigures the instance.
          steps.ready(name, `configure-${version}`, a[VERSION_ANNOTATION] ? delays.windowsConfigure : 0)
        ) {
          store.mutate(nodeKey, (n) => {
            n.metadata.annotations = { ...(n.metadata.annotations ?? {}), [VERSION_ANNOTATION]: version };
          });
        }
        continue;
      }
      if (field(machine, "status", "phase") !== "Provisioned") continue;
      if (!key) {
        report(
          machine,
          "Warning",
          "MachineSetupFailure",
          `Machine ${name} configuration failure: ${problem}`,
        );
        continue;
      }
      if (!steps.ready(name, `bootstrap-${version}`, delays.windowsConfigure)) continue;
      // The kubelet WMCO bootstrapped registers the node; the next syncs configure it as above.
      const built = buildNode(machine, { os: "windows", windowsBuild: windowsBuild(machine) }, clock.now());
      if (!store.get(keyOf(K.node, built.metadata.name))) store.create(built);
      report(machine, "Normal", "MachineSetup", `Machine ${name} configured successfully`);
    }
  }

  const unsubscribe = store.subscribe(({ object }) => {
    if (
      isKind(object, K.csv) ||
      isKind(object, K.machine) ||
      (isKind(object, K.secret) && [PRIVATE_KEY_SECRET, USER_DATA_SECRET].includes(object.metadata.name)) ||
      (isKind(object, K.node) && object.metadata.labels?.["kubernetes.io/os"] === "windows")
    ) {
      queue.add("wmco");
    }
  });
  queue.add("wmco");
  return unsubscribe;
}
