/**
 * OLM: the catalog operator (Subscription resolution against the catalog data, InstallPlans, their
 * execution, Subscription status) and the olm operator (OperatorGroup status, CSV phases Pending ->
 * InstallReady -> Installing -> Succeeded, replacement on upgrade). Conditions and messages use OLM's
 * wording so waiters can be written against the real thing.
 */
import { createHash } from "node:crypto";
import { Json, field, jsonEqual, obj } from "../../primitives/objects";
import { operatorComponentLabel } from "../../primitives/openshift";
import { BundleEntry, CATALOGS, InstallModeType, lookupBundle, successorOf } from "../cluster/catalog";
import { OPERATOR_DEPLOYMENTS, OWNED_CRDS, ownedEntry } from "../cluster/bundles";
import { checkInstall, deploymentFor } from "./olm-install";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { Stepper, WorkQueue } from "./workqueue";
import { Condition, K, KindRef, isKind, keyOf, timestamp, uniqueName } from "./util";

const SUB_API = K.subscription.apiVersion;

interface CsvPhaseStep {
  phase: string;
  reason: string;
  message: string;
}

/** The phases of a CSV's install (olm/operator.go transitionCSVState), with OLM's reasons and messages. */
const PENDING: CsvPhaseStep = {
  phase: "Pending",
  reason: "RequirementsUnknown",
  message: "requirements not yet checked",
};
const REQUIREMENTS_NOT_MET: CsvPhaseStep = {
  phase: "Pending",
  reason: "RequirementsNotMet",
  message: "one or more requirements couldn't be found",
};
const INSTALL_READY: CsvPhaseStep = {
  phase: "InstallReady",
  reason: "AllRequirementsMet",
  message: "all requirements found, attempting install",
};
const INSTALLING: CsvPhaseStep = {
  phase: "Installing",
  reason: "InstallSucceeded",
  message: "waiting for install components to report healthy",
};
const SUCCEEDED: CsvPhaseStep = {
  phase: "Succeeded",
  reason: "InstallSucceeded",
  message: "install strategy completed with no errors",
};
/** Reasons of a Failed CSV whose cause OLM re-checks, each moving it back to Pending once gone. */
const INSTALL_MODE_REASONS = ["NoOperatorGroup", "TooManyOperatorGroups", "UnsupportedOperatorGroup"];

/** OLM's refusal of an OperatorGroup whose target namespaces the CSV's install modes do not support. */
const INSTALL_MODE_MESSAGES: Record<InstallModeType, (n: number) => string> = {
  AllNamespaces: () =>
    "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces",
  OwnNamespace: () => "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace",
  SingleNamespace: () =>
    "SingleNamespace InstallModeType not supported, cannot configure to watch one namespace",
  MultiNamespace: (n) =>
    `MultiNamespace InstallModeType not supported, cannot configure to watch ${n} namespaces`,
};

function targetNamespaces(og: KubeObject): string[] {
  return (field<string[]>(og, "spec", "targetNamespaces") ?? []).filter((n) => n !== "");
}

function installModeOf(og: KubeObject): { mode: InstallModeType; count: number } {
  const targets = targetNamespaces(og);
  if (targets.length === 0) return { mode: "AllNamespaces", count: 0 };
  if (targets.length > 1) return { mode: "MultiNamespace", count: targets.length };
  return { mode: targets[0] === og.metadata.namespace ? "OwnNamespace" : "SingleNamespace", count: 1 };
}

function reference(o: KubeObject): Json {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    namespace: o.metadata.namespace,
    resourceVersion: o.metadata.resourceVersion,
    uid: o.metadata.uid,
  };
}

function setCond(conditions: Condition[], cond: Condition, now: string): Condition[] {
  const old = conditions.find((c) => c.type === cond.type);
  const same =
    old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message;
  const next = same ? old : { ...cond, lastTransitionTime: now };
  return [...conditions.filter((c) => c.type !== cond.type), next];
}

function removeCond(conditions: Condition[], ...types: string[]): Condition[] {
  return conditions.filter((c) => !types.includes(c.type));
}

/** Compares statuses ignoring the bookkeeping timestamps that would otherwise make every sync a write. */
function withoutTimes(status: Json): Json {
  const copy = structuredClone(status);
  delete copy.lastUpdated;
  for (const h of (copy.catalogHealth as Json[] | undefined) ?? []) delete h.lastUpdated;
  return copy;
}

export function startOlm(ctx: ControllerContext): StopFn {
  const { clock, delays, faults } = ctx;
  // Two processes, as on a cluster: catalog-operator resolves Subscriptions and executes InstallPlans
  // (creating the CSVs); olm-operator drives CSVs and OperatorGroups.
  const store = ctx.writer("catalog");
  const olm = ctx.writer("olm");
  const queue = new WorkQueue("olm", clock, (key) => {
    const [kind, namespace, name] = key.split("/");
    if (kind === "ns") syncSubscriptions(namespace);
    else if (kind === "ip") syncInstallPlan(namespace, name);
    else if (kind === "csv") syncCsv(namespace, name);
    else if (kind === "og") syncOperatorGroup(namespace, name);
  });
  const steps = new Stepper(queue, clock);
  const now = () => timestamp(clock.now());
  const list = (kind: KindRef, namespace: string) => store.list(kind.apiVersion, kind.kind, { namespace });

  // ---- catalog operator ----

  function catalogFor(sub: KubeObject) {
    const source = field<string>(sub, "spec", "source") ?? "";
    const sourceNamespace = field<string>(sub, "spec", "sourceNamespace") ?? "";
    const object = store.get(keyOf(K.catalogSource, source, sourceNamespace));
    return { source, sourceNamespace, object, content: object ? CATALOGS[source] : undefined };
  }

  /**
   * As catalog/subscription/state.go catalogHealthState.UpdateHealth: CatalogSourcesUnhealthy is True
   * when ANY catalog source in scope is unhealthy (or the Subscription's own is missing), and its message
   * names the Subscription's own source only when that one is at fault: otherwise the previous message
   * stays. The reason tells what changed in the list of sources since the last sync.
   */
  function catalogHealth(sub: KubeObject, status: Json): Condition[] {
    const { source, sourceNamespace } = catalogFor(sub);
    const namespaces = [...new Set([sub.metadata.namespace ?? "", "openshift-marketplace"])];
    const catalogs = namespaces.flatMap((ns) =>
      store.list(K.catalogSource.apiVersion, K.catalogSource.kind, { namespace: ns }),
    );
    const previous = (status.catalogHealth as Json[] | undefined) ?? [];
    const conditions = (status.conditions as Condition[] | undefined) ?? [];
    const old = conditions.find((c) => c.type === "CatalogSourcesUnhealthy");
    const health = catalogs.map((c) => {
      const healthy = field(c, "status", "connectionState", "lastObservedState") === "READY";
      const before = previous.find((p) => field(p, "catalogSourceRef", "uid") === c.metadata.uid);
      return {
        catalogSourceRef: reference(c),
        healthy,
        lastUpdated: before && before.healthy === healthy ? before.lastUpdated : now(),
        changed: !before || before.healthy !== healthy,
      };
    });
    status.catalogHealth = health.map(({ changed: _changed, ...h }) => h);
    const target = catalogs.find(
      (c) => c.metadata.name === source && c.metadata.namespace === sourceNamespace,
    );
    const cond: Condition = {
      type: "CatalogSourcesUnhealthy",
      status: "False",
      reason: "AllCatalogSourcesHealthy",
      message: old?.message ?? "",
    };
    if (!target || health.some((h) => !h.healthy)) {
      cond.status = "True";
      cond.reason = "UnhealthyCatalogSourceFound";
      if (!target) cond.message = `targeted catalogsource ${sourceNamespace}/${source} missing`;
      else if (!health.find((h) => h.catalogSourceRef.uid === target.metadata.uid)?.healthy)
        cond.message = `targeted catalogsource ${sourceNamespace}/${source} unhealthy`;
    } else cond.message = "all available catalogsources are healthy";
    if (health.length > previous.length) cond.reason = "CatalogSourcesAdded";
    else if (health.length < previous.length) cond.reason = "CatalogSourcesDeleted";
    else if (health.length === 0) {
      cond.reason = "NoCatalogSourcesFound";
      cond.message = "dependency resolution requires at least one catalogsource";
    } else if (health.some((h) => h.changed)) cond.reason = "CatalogSourcesUpdated";
    return setCond(conditions, cond, now());
  }

  function createInstallPlan(
    sub: KubeObject,
    entry: BundleEntry,
    generation: number,
    manual: boolean,
  ): KubeObject {
    const namespace = sub.metadata.namespace ?? "";
    const pkg = field<string>(sub, "spec", "name") ?? "";
    const { source, sourceNamespace } = catalogFor(sub);
    const name = uniqueName(
      "install-",
      `${namespace}/${generation}/${entry.name}`,
      (n) => !!store.get(keyOf(K.installPlan, n, namespace)),
    );
    const created = store.create({
      apiVersion: K.installPlan.apiVersion,
      kind: K.installPlan.kind,
      metadata: {
        name,
        namespace,
        labels: { [operatorComponentLabel(pkg, namespace)]: "" },
        ownerReferences: [
          {
            apiVersion: SUB_API,
            kind: "Subscription",
            name: sub.metadata.name,
            uid: sub.metadata.uid ?? "",
            controller: false,
            blockOwnerDeletion: false,
          },
        ],
      },
      spec: {
        approval: manual ? "Manual" : "Automatic",
        approved: !manual,
        clusterServiceVersionNames: [entry.name],
        generation,
      },
    });
    return (
      store.mutate(
        keyOf(K.installPlan, name, namespace),
        (ip) => {
          ip.status = {
            bundleLookups: [],
            catalogSources: [source],
            phase: manual ? "RequiresApproval" : "Installing",
            plan: [
              // The bundle's CRDs first, as the resolver orders a plan's steps.
              ...(OWNED_CRDS[pkg] ?? []).map((owned) => ({
                resolving: entry.name,
                resource: {
                  group: "apiextensions.k8s.io",
                  kind: "CustomResourceDefinition",
                  manifest: JSON.stringify(owned.definition),
                  name: (owned.definition.metadata as { name: string }).name,
                  sourceName: source,
                  sourceNamespace,
                  version: "v1",
                },
                status: "Unknown",
              })),
              {
                resolving: entry.name,
                resource: {
                  group: "operators.coreos.com",
                  kind: "ClusterServiceVersion",
                  manifest: JSON.stringify(csvFor(pkg, entry, namespace)),
                  name: entry.name,
                  sourceName: source,
                  sourceNamespace,
                  version: "v1alpha1",
                },
                status: "Unknown",
              },
            ],
            startTime: now(),
          };
        },
        { subresource: "status" },
      ) ?? created
    );
  }

  function syncSubscriptions(namespace: string): void {
    const subs = list(K.subscription, namespace).filter((s) => !s.metadata.deletionTimestamp);
    const operatorGroups = list(K.operatorGroup, namespace);
    const manual = subs.some((s) => field(s, "spec", "installPlanApproval") === "Manual");
    for (const sub of subs) {
      const status = structuredClone(obj(sub.status));
      let conditions = catalogHealth(sub, status);
      const pkg = field<string>(sub, "spec", "name") ?? "";
      const channel = field<string>(sub, "spec", "channel") ?? "";
      const current = status.currentCSV as string | undefined;
      if (current) {
        // ensureSubscriptionCSVState: the CSV exists -> it is installed and the subscription at latest known.
        if (store.get(keyOf(K.csv, current, namespace))) {
          status.state = "AtLatestKnown";
          status.installedCSV = current;
        } else {
          status.state = "UpgradePending";
        }
      }
      const pending = status.installPlanRef && status.state === "UpgradePending";
      if (!pending) {
        let entry: BundleEntry | undefined;
        let failure: Condition | undefined;
        const { source, sourceNamespace, content } = catalogFor(sub);
        if (operatorGroups.length !== 1) {
          failure = {
            type: "ResolutionFailed",
            status: "True",
            reason: "ErrorPreventedResolution",
            message: `expected 1 OperatorGroup in the namespace, found ${operatorGroups.length}`,
          };
        } else if (!current) {
          const resolved = lookupBundle(content, {
            name: sub.metadata.name,
            source,
            sourceNamespace,
            pkg,
            channel,
            startingCSV: field<string>(sub, "spec", "startingCSV"),
          });
          if (resolved.error) {
            failure = {
              type: "ResolutionFailed",
              status: "True",
              reason: "ConstraintsNotSatisfiable",
              message: `constraints not satisfiable: ${resolved.error}`,
            };
          }
          entry = resolved.entry;
        } else if (status.state === "AtLatestKnown") {
          entry = successorOf(content, pkg, channel, current);
        }
        if (failure) {
          conditions = setCond(conditions, failure, now());
        } else {
          conditions = removeCond(conditions, "ResolutionFailed");
          if (entry) {
            const generation =
              Math.max(
                0,
                ...subs.map((s) => field<number>(s, "status", "installPlanGeneration") ?? 0),
                ...list(K.installPlan, namespace).map((ip) => field<number>(ip, "spec", "generation") ?? 0),
              ) + 1;
            const ip = createInstallPlan(sub, entry, generation, manual);
            status.installPlanRef = reference(ip);
            status.installplan = {
              apiVersion: ip.apiVersion,
              kind: ip.kind,
              name: ip.metadata.name,
              uuid: ip.metadata.uid,
            };
            status.installPlanGeneration = generation;
            status.currentCSV = entry.name;
            status.state = "UpgradePending";
          }
        }
      }
      const ipName = field<string>(status, "installPlanRef", "name");
      const ip = ipName ? store.get(keyOf(K.installPlan, ipName, namespace)) : undefined;
      conditions = removeCond(conditions, "InstallPlanPending", "InstallPlanFailed", "InstallPlanMissing");
      if (ipName && !ip) {
        conditions = setCond(
          conditions,
          { type: "InstallPlanMissing", status: "True", reason: "ReferencedInstallPlanNotFound" },
          now(),
        );
      } else if (ip) {
        const phase = field<string>(ip, "status", "phase") ?? "";
        if (phase === "" || phase === "Planning" || phase === "Installing" || phase === "RequiresApproval") {
          conditions = setCond(
            conditions,
            {
              type: "InstallPlanPending",
              status: "True",
              reason: phase || "InstallPlanNotYetReconciled",
              message: "",
            },
            now(),
          );
        } else if (phase === "Failed") {
          conditions = setCond(
            conditions,
            { type: "InstallPlanFailed", status: "True", reason: "InstallPlanFailed", message: "" },
            now(),
          );
        }
      }
      status.conditions = conditions;
      if (!jsonEqual(withoutTimes(status), withoutTimes(obj(sub.status)))) {
        status.lastUpdated = now();
        store.mutate(keyOf(K.subscription, sub.metadata.name, namespace), (s) => (s.status = status), {
          subresource: "status",
        });
      }
    }
  }

  function syncInstallPlan(namespace: string, name: string): void {
    const key = keyOf(K.installPlan, name, namespace);
    const ip = store.get(key);
    if (!ip) return;
    const phase = field<string>(ip, "status", "phase");
    if (phase === "RequiresApproval" && field(ip, "spec", "approved") === true) {
      store.mutate(key, (o) => (o.status = { ...obj(o.status), phase: "Installing" }), {
        subresource: "status",
      });
      return;
    }
    if (phase !== "Installing" || !steps.ready(`ip/${namespace}/${name}`, "execute", delays.olmStep)) return;
    const og = list(K.operatorGroup, namespace)[0];
    const plan = (field<Json[]>(ip, "status", "plan") ?? []).map((step) => {
      const manifest = JSON.parse(String(field(step, "resource", "manifest"))) as KubeObject;
      if (field(step, "resource", "kind") === "CustomResourceDefinition") {
        // ExecutePlan creates a CRD, or updates one an earlier version of the operator created.
        const existing = store.get(keyOf(K.crd, manifest.metadata.name));
        if (!existing) store.create(manifest);
        else if (!jsonEqual(existing.spec, manifest.spec))
          store.mutate(keyOf(K.crd, manifest.metadata.name), (o) => (o.spec = manifest.spec));
        return { ...step, status: existing ? "Present" : "Created" };
      }
      const csv = manifest;
      if (!store.get(keyOf(K.csv, csv.metadata.name, namespace))) {
        // The olm operator annotates a CSV with the OperatorGroup that installs it.
        csv.metadata.annotations = {
          ...csv.metadata.annotations,
          "olm.operatorGroup": og?.metadata.name ?? "",
          "olm.targetNamespaces": og ? targetNamespaces(og).join(",") : "",
        };
        store.create(csv);
      }
      return { ...step, status: "Created" };
    });
    store.mutate(
      key,
      (o) => {
        o.status = {
          ...obj(o.status),
          phase: "Complete",
          plan,
          conditions: [
            { type: "Installed", status: "True", lastTransitionTime: now(), lastUpdateTime: now() },
          ],
        };
      },
      { subresource: "status" },
    );
  }

  // ---- olm operator ----

  function csvFor(pkg: string, entry: BundleEntry, namespace: string): KubeObject {
    const modes: InstallModeType[] = ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"];
    return {
      apiVersion: K.csv.apiVersion,
      kind: K.csv.kind,
      metadata: {
        name: entry.name,
        namespace,
        labels: { [operatorComponentLabel(pkg, namespace)]: "", "olm.managed": "true" },
        annotations: {
          "olm.operatorNamespace": namespace,
          "operators.operatorframework.io/builder": "operator-sdk-v1.33.0",
        },
      },
      spec: {
        displayName: entry.displayName,
        version: entry.version,
        ...(entry.replaces ? { replaces: entry.replaces } : {}),
        provider: { name: "Red Hat" },
        maturity: "stable",
        installModes: modes.map((type) => ({ type, supported: entry.installModes.includes(type) })),
        customresourcedefinitions: { owned: (OWNED_CRDS[pkg] ?? []).map(ownedEntry) },
        install: { strategy: "deployment", spec: { deployments: [strategyDeployment(pkg, entry)] } },
      },
    };
  }

  /** The operator's controller manager, as its bundle's install strategy declares it. */
  function strategyDeployment(pkg: string, entry: BundleEntry): Json {
    const name = OPERATOR_DEPLOYMENTS[pkg] ?? pkg;
    const labels = { name };
    return {
      name,
      label: { "app.kubernetes.io/name": pkg },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            containers: [
              {
                name: "manager",
                image: `registry.redhat.io/${pkg}/${name}@sha256:${createHash("sha256").update(entry.name).digest("hex")}`,
                resources: { requests: { cpu: "10m", memory: "64Mi" } },
              },
            ],
          },
        },
      },
    };
  }

  function setCsvPhase(csv: KubeObject, step: CsvPhaseStep): void {
    olm.mutate(
      keyOf(K.csv, csv.metadata.name, csv.metadata.namespace),
      (o) => {
        const status = obj(o.status);
        if (status.phase === step.phase && status.reason === step.reason && status.message === step.message)
          return;
        const ts = now();
        o.status = {
          ...status,
          phase: step.phase,
          reason: step.reason,
          message: step.message,
          lastUpdateTime: ts,
          // ClusterServiceVersion.SetPhase moves the transition time only when the phase changes.
          lastTransitionTime: status.phase === step.phase ? (status.lastTransitionTime ?? ts) : ts,
          conditions: [
            ...((status.conditions as Json[] | undefined) ?? []),
            { ...step, lastUpdateTime: ts, lastTransitionTime: ts },
          ].slice(-20),
        };
      },
      { subresource: "status" },
    );
  }

  function csvProblem(csv: KubeObject): CsvPhaseStep | undefined {
    const namespace = csv.metadata.namespace ?? "";
    const fault = faults.csvFault(namespace, csv.metadata.name);
    if (fault) return { phase: "Failed", ...fault };
    const ogs = list(K.operatorGroup, namespace);
    if (ogs.length === 0)
      return {
        phase: "Failed",
        reason: "NoOperatorGroup",
        message: "csv in namespace with no operatorgroups",
      };
    if (ogs.length > 1) {
      return {
        phase: "Failed",
        reason: "TooManyOperatorGroups",
        message: "csv created in namespace with multiple operatorgroups, can't pick one automatically",
      };
    }
    const { mode, count } = installModeOf(ogs[0]);
    const supported = (
      field<Array<{ type: InstallModeType; supported: boolean }>>(csv, "spec", "installModes") ?? []
    ).some((m) => m.type === mode && m.supported);
    if (!supported)
      return {
        phase: "Failed",
        reason: "UnsupportedOperatorGroup",
        message: INSTALL_MODE_MESSAGES[mode](count),
      };
    return undefined;
  }

  /** overrides/config.go findOwner: the Subscription whose installedCSV is this CSV; its `spec.config`. */
  function configOf(csv: KubeObject): Json | undefined {
    const owner = list(K.subscription, csv.metadata.namespace ?? "").find(
      (s) => field(s, "status", "installedCSV") === csv.metadata.name,
    );
    return field<Json>(owner, "spec", "config");
  }

  const strategiesOf = (csv: KubeObject) =>
    field<Array<{ name: string; spec: Json; label?: Record<string, string> }>>(
      csv,
      "spec",
      "install",
      "spec",
      "deployments",
    ) ?? [];

  /** requirementAndPermissionStatus: the owned CRDs present and Established. */
  function requirementsMet(csv: KubeObject): boolean {
    const owned = field<Array<{ name: string }>>(csv, "spec", "customresourcedefinitions", "owned") ?? [];
    return owned.every((o) => {
      const crd = store.get(keyOf(K.crd, o.name));
      return (field<Condition[]>(crd, "status", "conditions") ?? []).some(
        (c) => c.type === "Established" && c.status === "True",
      );
    });
  }

  /** StrategyDeploymentInstaller.Install: each Deployment created or updated with the config applied. */
  function install(csv: KubeObject): void {
    const config = configOf(csv);
    for (const strategy of strategiesOf(csv)) {
      const deployment = deploymentFor(csv, strategy, config);
      const key = keyOf(K.deployment, strategy.name, csv.metadata.namespace);
      if (!store.get(key)) olm.create(deployment);
      else
        olm.mutate(key, (d) => {
          d.metadata.labels = deployment.metadata.labels;
          d.metadata.annotations = deployment.metadata.annotations;
          d.metadata.ownerReferences = deployment.metadata.ownerReferences;
          d.spec = deployment.spec;
        });
    }
  }

  function installCheck(csv: KubeObject) {
    const existing = store
      .list(K.deployment.apiVersion, K.deployment.kind, { namespace: csv.metadata.namespace })
      .filter((d) => d.metadata.labels?.["olm.owner"] === csv.metadata.name);
    return checkInstall(csv, strategiesOf(csv), existing, configOf(csv));
  }

  /**
   * updateInstallStatus: installed -> Succeeded; a deployment past its progress deadline -> Failed for
   * good; a changed deployment -> InstallReady, to install again; anything else -> `requeue`.
   */
  function updateInstallStatus(csv: KubeObject, requeue: { phase: string; reason: string }): boolean {
    const check = installCheck(csv);
    if (check.state === "installed") {
      setCsvPhase(csv, SUCCEEDED);
      return true;
    }
    if (check.state === "timeout")
      setCsvPhase(csv, {
        phase: "Failed",
        reason: "InstallCheckFailed",
        message: `install failed: ${check.message}`,
      });
    else if (check.state === "outdated")
      setCsvPhase(csv, {
        phase: "InstallReady",
        reason: requeue.reason,
        message: `installing: ${check.message}`,
      });
    else setCsvPhase(csv, { ...requeue, message: `installing: ${check.message}` });
    return false;
  }

  function syncCsv(namespace: string, name: string): void {
    const csv = store.get(keyOf(K.csv, name, namespace));
    if (!csv || csv.metadata.deletionTimestamp) return;
    const qkey = `csv/${namespace}/${name}`;
    const problem = csvProblem(csv);
    if (problem) return setCsvPhase(csv, problem);
    const phase = field<string>(csv, "status", "phase") ?? "";
    const reason = field<string>(csv, "status", "reason") ?? "";
    switch (phase) {
      case "Replacing": {
        // Deleted once its replacement has succeeded (then Deleting, which deletes it).
        const next = replacementOf(csv);
        if (field(next, "status", "phase") === "Succeeded") store.delete(keyOf(K.csv, name, namespace));
        return;
      }
      case "Deleting":
        return;
      case "Pending": {
        if (!steps.ready(qkey, phase, delays.olmStep)) return;
        if (!requirementsMet(csv)) return setCsvPhase(csv, REQUIREMENTS_NOT_MET);
        // The CSV it replaces must be Replacing before this one installs.
        const replaces = field<string>(csv, "spec", "replaces");
        const previous = replaces ? store.get(keyOf(K.csv, replaces, namespace)) : undefined;
        if (previous && field(previous, "status", "phase") !== "Replacing") return;
        return setCsvPhase(csv, INSTALL_READY);
      }
      case "InstallReady":
        if (!steps.ready(qkey, phase, delays.olmStep)) return;
        install(csv);
        return setCsvPhase(csv, INSTALLING);
      case "Installing": {
        if (updateInstallStatus(csv, { phase: "Installing", reason: "InstallWaiting" })) return;
        const since = Date.parse(
          field<string>(store.get(keyOf(K.csv, name, namespace)), "status", "lastTransitionTime") ?? "",
        );
        const left = since + delays.installTimeout - clock.now().getTime();
        if (field(store.get(keyOf(K.csv, name, namespace)), "status", "phase") !== "Installing") return;
        if (left <= 0)
          return setCsvPhase(csv, {
            phase: "Failed",
            reason: "InstallCheckFailed",
            message: "install timeout",
          });
        clock.after(left, () => queue.add(qkey));
        return;
      }
      case "Succeeded": {
        // checkReplacementsAndUpdateStatus: a newer CSV replacing this one takes over.
        const next = replacementOf(csv);
        if (next)
          return setCsvPhase(csv, {
            phase: "Replacing",
            reason: "BeingReplaced",
            message: `being replaced by csv: ${next.metadata.name}`,
          });
        updateInstallStatus(csv, { phase: "Failed", reason: "ComponentUnhealthy" });
        return;
      }
      case "Failed":
        // A failure of the install modes or the OperatorGroup whose cause is gone starts over.
        if (INSTALL_MODE_REASONS.includes(reason) || reason === "") return setCsvPhase(csv, PENDING);
        if (!requirementsMet(csv))
          return setCsvPhase(csv, { ...REQUIREMENTS_NOT_MET, message: "requirements not met" });
        updateInstallStatus(csv, { phase: "Pending", reason: "NeedsReinstall" });
        return;
      default:
        // New: OLM schedules it for the check of its requirements.
        return setCsvPhase(csv, PENDING);
    }
  }

  /** isBeingReplaced: the CSV of the namespace whose `spec.replaces` names this one. */
  function replacementOf(csv: KubeObject): KubeObject | undefined {
    return list(K.csv, csv.metadata.namespace ?? "").find(
      (c) => field(c, "spec", "replaces") === csv.metadata.name && !c.metadata.deletionTimestamp,
    );
  }

  function syncOperatorGroup(namespace: string, name: string): void {
    const key = keyOf(K.operatorGroup, name, namespace);
    const og = store.get(key);
    if (!og) return;
    const targets = targetNamespaces(og);
    const namespaces = targets.length > 0 ? targets : [""];
    if (!jsonEqual(field(og, "status", "namespaces"), namespaces)) {
      olm.mutate(key, (o) => (o.status = { ...obj(o.status), namespaces, lastUpdated: now() }), {
        subresource: "status",
      });
    }
  }

  // ---- wiring ----

  const enqueueNamespace = (namespace: string | undefined) => {
    if (namespace) queue.add(`ns/${namespace}`);
  };
  const enqueueCsvs = (namespace: string | undefined) => {
    for (const c of list(K.csv, namespace ?? "")) queue.add(`csv/${c.metadata.namespace}/${c.metadata.name}`);
  };
  const unsubscribe = store.subscribe(({ object }) => {
    const ns = object.metadata.namespace;
    if (isKind(object, K.subscription)) {
      enqueueNamespace(ns);
      // The config of a Subscription reaches its CSV's Deployments.
      enqueueCsvs(ns);
    } else if (isKind(object, K.deployment)) {
      const owner = object.metadata.labels?.["olm.owner"];
      if (owner && object.metadata.labels?.["olm.owner.kind"] === "ClusterServiceVersion")
        queue.add(`csv/${ns}/${owner}`);
    } else if (isKind(object, K.crd)) {
      for (const c of store.list(K.csv.apiVersion, K.csv.kind))
        queue.add(`csv/${c.metadata.namespace}/${c.metadata.name}`);
    } else if (isKind(object, K.installPlan)) {
      queue.add(`ip/${ns}/${object.metadata.name}`);
      enqueueNamespace(ns);
    } else if (isKind(object, K.csv)) {
      queue.add(`csv/${ns}/${object.metadata.name}`);
      enqueueNamespace(ns);
      const replaces = field<string>(object, "spec", "replaces");
      if (replaces) queue.add(`csv/${ns}/${replaces}`);
      // Its replacement waits for it to be Replacing.
      const next = list(K.csv, ns ?? "").find((c) => field(c, "spec", "replaces") === object.metadata.name);
      if (next) queue.add(`csv/${ns}/${next.metadata.name}`);
    } else if (isKind(object, K.operatorGroup)) {
      queue.add(`og/${ns}/${object.metadata.name}`);
      enqueueNamespace(ns);
      enqueueCsvs(ns);
    } else if (isKind(object, K.catalogSource)) {
      for (const s of store.list(K.subscription.apiVersion, K.subscription.kind))
        enqueueNamespace(s.metadata.namespace);
    }
  });
  const unwatchFaults = faults.onChange((t) => {
    if (t.kind === "csv") queue.add(`csv/${t.namespace}/${t.name}`);
  });
  for (const kind of [K.subscription, K.installPlan, K.csv, K.operatorGroup]) {
    for (const o of store.list(kind.apiVersion, kind.kind)) {
      const prefix =
        kind === K.subscription ? "ns" : kind === K.installPlan ? "ip" : kind === K.csv ? "csv" : "og";
      queue.add(
        prefix === "ns"
          ? `ns/${o.metadata.namespace}`
          : `${prefix}/${o.metadata.namespace}/${o.metadata.name}`,
      );
    }
  }
  return () => {
    unsubscribe();
    unwatchFaults();
  };
}
