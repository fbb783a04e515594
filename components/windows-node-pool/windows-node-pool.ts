import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { AzureImage } from "../../builders/machineset";
import { requireDnsLabel } from "../../builders/validation";
import {
  requireRsaPrivateKeyPem,
  requireWindowsBuild,
  WINDOWS_BUILDS,
  windowsPoolSpec,
  windowsRuntimeClass,
  WindowsRuntimeHandler,
  WindowsServerVersion,
  WMCO,
} from "../../builders/windows";
import { publicKeyFingerprint, RsaPrivateKey } from "./rsa-private-key";
import { MachineSetReady, WindowsNodesReady } from "../../provider/dynamic";
import { ClusterFacts, MachineImage, resolveClusterFacts, workerMachineSet } from "../cluster/facts";
import { kubeOptions, PATCH_FORCE, withAnnotations } from "../cluster/kube";
import { KINDS, KubeObject } from "../../provider/waiting/kinds";
import { adoption } from "../cluster/adoption";
import { sharedArgs, SharedArgs, waiting } from "../cluster/wait";
import { within } from "../../builders/errors";
import { child } from "../declared";
import { checked, InputChecks } from "../errors";
import { platformModules } from "../platforms";
import { declareNodeLabels } from "../machine-pool/node-labels";
import { declarePoolScaling } from "../machine-pool/scaling";
import type { NodeMetadataImpact } from "../../builders/machineset/node-metadata";
import {
  checkPoolArgs,
  declareMachineSets,
  MachinePoolArgs,
  firstZone,
  placeZones,
  poolZones,
} from "../machine-pool/machine-sets";
import {
  nestedSubscriptionArgs,
  OperatorSubscription,
  OperatorSubscriptionArgs,
} from "../operator-subscription/operator-subscription";

export interface WindowsNodePoolArgs extends MachinePoolArgs {
  /**
   * Name segment of the MachineSets: AWS `<infraID>-<role>-<zone>` (default `windows-worker`, as the Windows container docs name it);
   * Azure `<role><zone>`, or `<role>` in a region without zones (default `win`), held to 9 characters because Windows VM names are limited to 15
   * (the platform modules' `windows` rules).
   */
  role?: string;
  /** Windows Server version ("2019", "2022", "2025") or build ("10.0.20348"); default 2022. */
  windowsServer?: string;
  /** AMI id (AWS) or image (Azure); default the newest Amazon Windows Server AMI with containers, or the Marketplace image WMCO documents. */
  image?: pulumi.Input<string | Partial<AzureImage>>;
  /**
   * RSA private key (PEM) WMCO uses to reach its VMs; kept secret end to end. Generated (and kept in
   * state) when omitted, unless `adopt` finds the `cloud-private-key` Secret, whose key is kept then.
   * Prefer a key other than the cluster's install key.
   * @secret
   */
  privateKey?: pulumi.Input<string>;
  /**
   * The WMCO install: the documented defaults (namespace `openshift-windows-machine-config-operator`, channel
   * `stable`, `redhat-operators`), each overridable; `false` to reuse an operator that is already installed.
   * It reaches the cluster and waits as the pool does: `provider`, `wait`, `kubeconfig` and
   * `waitTimeouts` are the pool's.
   */
  operator?: false | Partial<Omit<OperatorSubscriptionArgs, "packageName" | keyof SharedArgs>>;
  /**
   * Adopt what OpenShift's Windows docs make by hand, under the same names: WMCO's namespace, OperatorGroup and
   * Subscription (unless `operator: false`), the `cloud-private-key` Secret (its key kept unless
   * `privateKey` gives one: another key would replace the Secret, which Pulumi refuses while it imports
   * it), the Windows MachineSets, the RuntimeClass and, when declared, the
   * MachineAutoscalers (named as their MachineSets) and the MachineHealthCheck `<infraID>-<role>`. The
   * Secret, the RuntimeClass or a machine object the cluster lacks is created, and the preview says so;
   * WMCO's namespace, OperatorGroup and Subscription must exist (the preview names each one missing).
   */
  adopt?: boolean;
  /** The RuntimeClass for this pool's build: `runhcs-wcow-process` (containerd) by default, `docker` for 4.6. `false` for none. */
  runtimeClass?: false | { name?: string; handler?: WindowsRuntimeHandler };
}

/** The PEM a `cloud-private-key` Secret holds, as WMCO reads it; undefined without one. */
function heldKey(secret: KubeObject | undefined): string | undefined {
  const data = secret?.data as Record<string, string> | undefined;
  const encoded = data?.[WMCO.privateKeyField];
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64").toString("utf8");
}

/** Year of a Windows Server version or build. */
function windowsVersion(value: string): WindowsServerVersion {
  const build = requireWindowsBuild("windowsServer", value);
  return (Object.keys(WINDOWS_BUILDS) as WindowsServerVersion[]).find((v) => WINDOWS_BUILDS[v] === build)!;
}

/**
 * Windows worker nodes as the Windows container docs set them up: the Windows Machine Config Operator through OLM, its
 * private key secret, Windows MachineSets per zone (which WMCO turns into configured nodes), and a
 * RuntimeClass that puts pods on this build's nodes.
 */
export class WindowsNodePool extends pulumi.ComponentResource {
  /** The cluster facts the MachineSets are built from: given, or read from the cluster. */
  declare public readonly facts: pulumi.Output<ClusterFacts>;
  /** Names of the pool's Windows MachineSets, one per zone. */
  declare public readonly machineSetNames: pulumi.Output<string[]>;
  /** The pool's Windows MachineSets, one per zone. */
  declare public readonly machineSets: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /**
   * At preview, a line per MachineSet whose machines run another spec than it declares (`3 machines
   * keep m6i.xlarge; only new machines get m6i.2xlarge`), also logged on the component.
   */
  declare public readonly machineSpecChanges: pulumi.Output<string[] | undefined>;
  /** One MachineAutoscaler per MachineSet with `autoscaling`, else none. */
  declare public readonly machineAutoscalers: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /** The pool's MachineHealthCheck with `healthCheck`. */
  declare public readonly machineHealthCheck: pulumi.Output<k8s.apiextensions.CustomResource> | undefined;
  /** The Windows Server build of the nodes (`node.kubernetes.io/windows-build`). */
  declare public readonly windowsBuild: string;
  /** Name of the RuntimeClass workloads set as `runtimeClassName`, when one is created. */
  declare public readonly runtimeClassName: pulumi.Output<string | undefined>;
  /** The WMCO install, unless an existing one is reused. */
  declare public readonly operator: OperatorSubscription | undefined;
  /** The namespace WMCO runs in, where its `cloud-private-key` Secret is. */
  declare public readonly operatorNamespace: string;
  /** Windows nodes WMCO has configured, once waited for. */
  declare public readonly configuredNodes: pulumi.Output<string[] | undefined>;
  /** The `cloud-private-key` Secret WMCO reads; with `adopt`, declared once the cluster has said whether it holds it. */
  declare public readonly keySecret: pulumi.Output<k8s.core.v1.Secret>;
  /** SHA-256 fingerprint of the key's public half: tells which key WMCO uses without revealing it. */
  declare public readonly privateKeyFingerprint: pulumi.Output<string>;
  /**
   * At preview, the labels the pool's running nodes get and lose (`2 nodes get label team=a (no drain,
   * no reboot)`, in the pool's one line); undefined when none changes.
   */
  declare public readonly labelsAndTaintsImpact: pulumi.Output<NodeMetadataImpact | undefined>;

  constructor(name: string, args: WindowsNodePoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:WindowsNodePool", name, {}, opts);
    const of = `WindowsNodePool "${name}"`;
    const checks = new InputChecks(of);
    const kopts = kubeOptions(this, args.provider);
    // With a bad windowsServer, the default's build stands in so that runtimeClass is still checked.
    const version = checks.now(() => windowsVersion(args.windowsServer ?? "2022"), "2022");
    const build = WINDOWS_BUILDS[version];
    const operatorArgs = args.operator === false ? undefined : (args.operator ?? {});
    const namespace = operatorArgs?.namespace ?? WMCO.namespace;
    const subscriptionArgs =
      operatorArgs &&
      nestedSubscriptionArgs(
        {
          channel: WMCO.channel,
          ...operatorArgs,
          packageName: WMCO.packageName,
          namespace,
          adopt: args.adopt,
          ...sharedArgs(args),
        },
        "operator",
        checks,
      );
    if (args.privateKey !== undefined) {
      checks.asKnown((a: { privateKey: unknown }) => requireRsaPrivateKeyPem("privateKey", a.privateKey), {
        privateKey: args.privateKey,
      });
    }
    const waits = checks.now(() => waiting(args, this), undefined);
    checks.add(checkPoolArgs(args, [], args.image, waits));
    const runtimeClassManifest =
      args.runtimeClass === false
        ? undefined
        : checks.now(
            () =>
              within(
                // The builder's name and handler are the user's runtimeClass.name and runtimeClass.handler.
                (path) => (path === "build" ? "windowsServer" : `runtimeClass.${path}`),
                () =>
                  windowsRuntimeClass({
                    name: (args.runtimeClass && args.runtimeClass.name) || `windows-${version}`,
                    build,
                    handler: args.runtimeClass ? args.runtimeClass.handler : undefined,
                  }),
              ),
            undefined,
          );
    const valid = checks.valid();

    const operator =
      subscriptionArgs && new OperatorSubscription(`${name}-wmco`, subscriptionArgs, { parent: this });

    const adopting = adoption(args, waits, this);
    const keyObject = { kind: KINDS.secret, name: WMCO.privateKeySecret, namespace };
    const generate = () =>
      child(RsaPrivateKey, `${name}-private-key`, {}, { parent: this, dependsOn: valid.apply(() => []) });
    // Adopting without a key given, the pool keeps the key WMCO has (made by hand, or by a stack whose
    // state is lost) rather than generating one: another key would replace the Secret, which Pulumi
    // refuses while it imports it, and WMCO would have to reach every Windows VM with the new key.
    const keeping = adopting !== undefined && args.privateKey === undefined;
    const clusterKey = keeping
      ? pulumi.secret(
          adopting.kubeconfig.apply(async (config) => heldKey(await adopting.read(config, keyObject))),
        )
      : pulumi.output(undefined);
    const none = pulumi.output<RsaPrivateKey | undefined>(undefined);
    const generated: pulumi.Output<RsaPrivateKey | undefined> = keeping
      ? clusterKey.apply<RsaPrivateKey | undefined>((held) => (held === undefined ? generate() : none))
      : args.privateKey === undefined
        ? generate()
        : none;
    const privateKey = pulumi.secret(
      pulumi
        .all([valid, args.privateKey, clusterKey, generated])
        .apply(([, given, held, key]) => (key ? key.privateKeyPem : ((given ?? held) as string))),
    );
    const declareKeySecret = (adopted: pulumi.CustomResourceOptions = {}) =>
      child(
        k8s.core.v1.Secret,
        `${name}-private-key`,
        {
          metadata: { name: WMCO.privateKeySecret, namespace, annotations: PATCH_FORCE },
          type: "Opaque",
          stringData: { [WMCO.privateKeyField]: privateKey },
        },
        { ...kopts, ...adopted, dependsOn: operator ? operator.ready : [] },
      );
    // Adopting, the Secret, the RuntimeClass and the machine objects are imported when the cluster holds
    // them and created otherwise (WMCO installed from OperatorHub, its key not given yet).
    const keySecret = adopting
      ? adopting.kubeconfig
          .apply((config) => adopting.options(config, [keyObject]))
          .apply(([adopted]) => declareKeySecret(adopted))
      : declareKeySecret();

    const facts = resolveClusterFacts(name, args, kopts, valid);
    const zones = poolZones(args.zones, valid);
    const placed = placeZones(zones, facts, args.cloudLookups === true, { parent: this }, of);
    const role = facts.apply((f) =>
      checked(() =>
        requireDnsLabel("role", args.role ?? platformModules(f.platform).machineSets.windows.defaultRole),
      ),
    );
    const image = pulumi
      .all([facts, args.image])
      .apply(async ([f, given]) =>
        given !== undefined
          ? given
          : platformModules(f.platform).cloud.windowsImage(version, { parent: this }),
      );

    const machineSets = declareMachineSets(name, args, facts, zones, placed, {
      of,
      role,
      // Windows nodes belong to no MachineConfigPool: their line says only what changes of their machines.
      pool: { name, renders: false },
      nodeLabels: {},
      taints: pulumi.output([]),
      image: image as pulumi.Output<MachineImage>,
      // Windows machines join the workers' network, as WMCO's documented MachineSets copy it.
      worker: workerMachineSet(
        name,
        facts,
        firstZone(placed, of),
        undefined,
        kopts,
        `${name}-network-source`,
      ),
      adjust: windowsPoolSpec,
      // WMCO must be running and hold its key before Windows machines boot, and on destroy the machines
      // must be gone before the operator is removed, as the docs require.
      dependsOn: operator
        ? pulumi.all([keySecret, operator.ready]).apply(([k, r]) => [k, ...r])
        : [keySecret],
      kubeOptions: kopts,
      waiting: waits,
      adoption: adopting,
    });

    const scaling = declarePoolScaling(name, args, facts, machineSets, {
      of,
      machineRole: "worker",
      role: role,
      kubeOptions: kopts,
      waiting: waits,
      adoption: adopting,
    });

    // With machineReplacement, the machines a changed template left on the previous spec are replaced
    // (each new one Ready, so configured by WMCO, before an old one goes) before the nodes are counted.
    const replaced =
      waits &&
      machineSets.replacement &&
      child(
        MachineSetReady,
        `${name}-machines-replaced`,
        {
          ...waits.watching(machineSets.resources),
          machineSets: machineSets.names,
          contentHash: machineSets.contentHash,
          machineReplacement: machineSets.replacement,
        },
        waits.options(machineSets.resources),
      );
    const configured =
      waits &&
      child(
        WindowsNodesReady,
        `${name}-nodes-ready`,
        {
          ...waits.watching(machineSets.resources),
          machineSets: machineSets.names,
          wmcoNamespace: namespace,
          contentHash: machineSets.contentHash,
        },
        waits.options(
          replaced
            ? pulumi.all([machineSets.resources, replaced]).apply(([r, m]) => [...r, m])
            : machineSets.resources,
        ),
      );

    // WMCO labels a node with its own labels only (pkg/nodeconfig `applyLabelsAndAnnotations`); the
    // machine-api's nodelink copies a Windows Machine's labels as any other's.
    const labels = declareNodeLabels(
      name,
      { name, renders: false },
      machineSets,
      waits,
      configured ? [configured] : machineSets.resources,
      this,
    );

    const declareRuntimeClass = (
      manifest: NonNullable<typeof runtimeClassManifest>,
      adopted: pulumi.CustomResourceOptions = {},
    ) =>
      child(k8s.node.v1.RuntimeClass, `${name}-runtime-class`, withAnnotations(manifest, PATCH_FORCE), {
        ...kopts,
        ...adopted,
        dependsOn: valid.apply(() => []),
      });
    const runtimeClass =
      runtimeClassManifest &&
      (adopting
        ? adopting.kubeconfig
            .apply((config) =>
              adopting.options(config, [
                { kind: KINDS.runtimeClass, name: runtimeClassManifest.metadata.name },
              ]),
            )
            .apply(([adopted]) => declareRuntimeClass(runtimeClassManifest, adopted))
        : declareRuntimeClass(runtimeClassManifest));

    this.facts = facts;
    this.machineSetNames = machineSets.names;
    this.machineSpecChanges = machineSets.specChanges;
    this.machineSets = machineSets.resources;
    this.machineAutoscalers = scaling.autoscalers;
    this.machineHealthCheck = scaling.healthCheck;
    this.windowsBuild = build;
    this.runtimeClassName = runtimeClass
      ? runtimeClass.apply((r) => r.metadata.name)
      : valid.apply(() => undefined);
    this.operator = operator;
    this.operatorNamespace = namespace;
    this.keySecret = keySecret;
    this.configuredNodes = configured ? configured.apply((c) => c.nodes) : pulumi.output(undefined);
    // A generated key's fingerprint is its provider's output: its PEM is known only once it is created.
    this.privateKeyFingerprint = generated.apply((key) =>
      key ? key.publicKeyFingerprint : pulumi.unsecret(privateKey.apply(publicKeyFingerprint)),
    );
    this.labelsAndTaintsImpact = labels.impact;
    this.registerOutputs({
      labelsAndTaintsImpact: this.labelsAndTaintsImpact,
      facts,
      machineSetNames: this.machineSetNames,
      machineSpecChanges: this.machineSpecChanges,
      windowsBuild: build,
      runtimeClassName: this.runtimeClassName,
      privateKeyFingerprint: this.privateKeyFingerprint,
      configuredNodes: this.configuredNodes,
    });
  }
}
