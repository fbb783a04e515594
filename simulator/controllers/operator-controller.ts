/**
 * OLM v1's operator-controller (operator-framework/operator-controller v1.2,
 * internal/operator-controller/controllers/clusterextension_controller.go, Reconcile): finalizers
 * first, the install's ServiceAccount, resolution against the serving ClusterCatalogs (package,
 * channels, version range; the highest version that fits), then the bundle applied (its CRDs and its
 * Deployment in spec.namespace, labelled with the owner) and the status: Installed True/Succeeded with
 * status.install.bundle, Progressing True/Succeeded "desired state reached"; any error is Progressing
 * True/Retrying with its message (common_controller.go setStatusProgressing), Installed False "No bundle
 * installed" while nothing is. Deleting a ClusterExtension uninstalls what it applied (CRDs included,
 * as its Helm release holds them) before its finalizers go.
 */
import * as semver from "semver";
import { field, Json, obj } from "../../primitives/objects";
import { OPERATOR_DEPLOYMENTS, OWNED_CRDS } from "../cluster/bundles";
import { BundleEntry, CATALOGS } from "../cluster/catalog";
import { V1_CATALOG_CONTENT } from "../cluster/olmv1";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { Condition, K, keyOf, setCondition } from "./util";
import { WorkQueue } from "./workqueue";

const EXTENSION = { apiVersion: "olm.operatorframework.io/v1", kind: "ClusterExtension" };
const CATALOG = { apiVersion: "olm.operatorframework.io/v1", kind: "ClusterCatalog" };
export const EXTENSION_FINALIZERS = [
  "olm.operatorframework.io/cleanup-unpack-cache",
  "olm.operatorframework.io/cleanup-contentmanager-cache",
];
const OWNER_KIND = "olm.operatorframework.io/owner-kind";
const OWNER_NAME = "olm.operatorframework.io/owner-name";

/** The bundles of a package over the serving catalogs' content, with the channels holding each. */
function bundlesOf(pkg: string): Array<BundleEntry & { channels: string[] }> {
  const content = CATALOGS[V1_CATALOG_CONTENT]?.packages[pkg];
  if (!content) return [];
  const byName = new Map<string, BundleEntry & { channels: string[] }>();
  for (const [channel, entries] of Object.entries(content.channels))
    for (const e of entries) {
      const known = byName.get(e.name) ?? { ...e, channels: [] };
      known.channels.push(channel);
      byName.set(e.name, known);
    }
  return [...byName.values()];
}

/** resolve/catalog.go Resolve: the highest version in the channels and range, or the resolver's error. */
export function resolveBundle(spec: Json): { bundle?: BundleEntry; error?: string } {
  const catalog = obj(field<Json>(spec, "source", "catalog"));
  const pkg = String(catalog.packageName ?? "");
  const channels = (catalog.channels as string[] | undefined) ?? [];
  const version = catalog.version as string | undefined;
  const range =
    version === undefined ? undefined : new semver.Range(version.replace(/\s*,\s*/g, " "), { loose: true });
  const all = bundlesOf(pkg);
  const fits = all
    .filter((b) => channels.length === 0 || b.channels.some((c) => channels.includes(c)))
    .filter((b) => !range || semver.satisfies(b.version, range, { loose: true }))
    .sort((a, b) => semver.compareLoose(b.version, a.version));
  if (fits.length > 0) return { bundle: fits[0] };
  const where = [
    version !== undefined ? ` matching version "${version}"` : "",
    channels.length > 0 ? ` in channels [${channels.join(" ")}]` : "",
  ].join("");
  return { error: `no bundles found for package "${pkg}"${where}` };
}

export function startOperatorController(ctx: ControllerContext): StopFn {
  const { clock, delays } = ctx;
  const store = ctx.writer("operator-controller");
  const queue = new WorkQueue("operator-controller", clock, (name) => reconcile(name));
  const key = (name: string) => ({ ...EXTENSION, name });

  function setStatus(ext: KubeObject, status: Json): void {
    store.mutate(key(ext.metadata.name), (o) => (o.status = status), { subresource: "status" });
  }

  function conditionsWith(
    ext: KubeObject,
    ...next: Array<Omit<Condition, "lastTransitionTime">>
  ): Condition[] {
    let conditions = (field<Condition[]>(ext, "status", "conditions") ?? []) as Condition[];
    for (const c of next)
      conditions = setCondition(
        conditions,
        { ...c, observedGeneration: ext.metadata.generation ?? 1 } as unknown as Condition,
        clock.now(),
      );
    return conditions;
  }

  function applied(ext: KubeObject): KubeObject[] {
    const owned = (o: KubeObject) =>
      o.metadata.labels?.[OWNER_NAME] === ext.metadata.name &&
      o.metadata.labels?.[OWNER_KIND] === "ClusterExtension";
    return [
      ...ctx.store.list(K.deployment.apiVersion, K.deployment.kind).filter(owned),
      ...ctx.store.list(K.crd.apiVersion, K.crd.kind).filter(owned),
    ];
  }

  function uninstall(ext: KubeObject): void {
    const left = applied(ext);
    for (const o of left)
      if (!o.metadata.deletionTimestamp)
        store.delete({
          apiVersion: o.apiVersion,
          kind: o.kind,
          name: o.metadata.name,
          namespace: o.metadata.namespace,
        });
    if (left.length > 0) return;
    store.mutate(key(ext.metadata.name), (o) => {
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => !EXTENSION_FINALIZERS.includes(f));
    });
  }

  function install(ext: KubeObject, bundle: BundleEntry, pkg: string, namespace: string): void {
    const labels = { [OWNER_KIND]: "ClusterExtension", [OWNER_NAME]: ext.metadata.name };
    for (const owned of OWNED_CRDS[pkg] ?? []) {
      const definition = structuredClone(owned.definition) as unknown as KubeObject;
      definition.metadata.labels = { ...definition.metadata.labels, ...labels };
      if (!ctx.store.get(keyOf(K.crd, definition.metadata.name))) store.create(definition);
    }
    const name = OPERATOR_DEPLOYMENTS[pkg] ?? pkg;
    const existing = ctx.store.get(keyOf(K.deployment, name, namespace));
    const spec = {
      replicas: 1,
      selector: { matchLabels: { name } },
      template: {
        metadata: { labels: { name } },
        spec: {
          serviceAccountName: name,
          containers: [{ name: "manager", image: `registry.redhat.io/${pkg}/${name}:v${bundle.version}` }],
        },
      },
    };
    if (!existing)
      store.create({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name, namespace, labels },
        spec,
      });
    else if (
      field(existing, "spec", "template", "spec", "containers", "0", "image") !==
      spec.template.spec.containers[0].image
    )
      store.mutate(keyOf(K.deployment, name, namespace), (d) => (d.spec = spec));
  }

  function reconcile(name: string): void {
    const ext = ctx.store.get(key(name));
    if (!ext) return;
    // Finalizers first: on create, added before anything is done; on delete, nothing else is done.
    if (ext.metadata.deletionTimestamp) return uninstall(ext);
    const finalizers = ext.metadata.finalizers ?? [];
    if (!EXTENSION_FINALIZERS.every((f) => finalizers.includes(f))) {
      store.mutate(key(name), (o) => {
        o.metadata.finalizers = [...new Set([...(o.metadata.finalizers ?? []), ...EXTENSION_FINALIZERS])];
      });
      return;
    }
    const spec = obj(ext.spec);
    const namespace = String(spec.namespace ?? "");
    const installed = field<Json>(ext, "status", "install");
    const retrying = (message: string, installedCondition: Omit<Condition, "lastTransitionTime" | "type">) =>
      setStatus(ext, {
        ...(installed ? { install: installed } : {}),
        conditions: conditionsWith(
          ext,
          { type: "Installed", ...installedCondition },
          { type: "Progressing", status: "True", reason: "Retrying", message },
        ),
      });
    const serviceAccount = String(field(spec, "serviceAccount", "name") ?? "");
    if (!ctx.store.get(keyOf(K.serviceAccount, serviceAccount, namespace))) {
      const message = `service account "${serviceAccount}" not found in namespace "${namespace}"`;
      return retrying("installation cannot proceed due to missing ServiceAccount", {
        status: "Unknown",
        reason: "Failed",
        message,
      });
    }
    const serving = ctx.store
      .list(CATALOG.apiVersion, CATALOG.kind)
      .some((c) =>
        (field<Condition[]>(c, "status", "conditions") ?? []).some(
          (x) => x.type === "Serving" && x.status === "True",
        ),
      );
    const resolved = serving ? resolveBundle(spec) : { error: "no catalogs serve content" };
    if (!resolved.bundle)
      return retrying(
        resolved.error!,
        installed
          ? { status: "True", reason: "Succeeded", message: "Installed bundle successfully" }
          : { status: "False", reason: "Failed", message: "No bundle installed" },
      );
    if (!ctx.store.get(keyOf(K.namespace, namespace)))
      return retrying(`namespaces "${namespace}" not found`, {
        status: "False",
        reason: "Failed",
        message: "No bundle installed",
      });
    const pkg = String(field(spec, "source", "catalog", "packageName"));
    install(ext, resolved.bundle, pkg, namespace);
    const image = `registry.redhat.io/redhat/${pkg}-bundle@sha256:${resolved.bundle.version}`;
    const next: Json = {
      install: { bundle: { name: resolved.bundle.name, version: resolved.bundle.version } },
      conditions: conditionsWith(
        ext,
        {
          type: "Installed",
          status: "True",
          reason: "Succeeded",
          message: `Installed bundle ${image} successfully`,
        },
        { type: "Progressing", status: "True", reason: "Succeeded", message: "desired state reached" },
      ),
    };
    // Applying the bundle takes an unpack and a Helm release.
    clock.after(delays.olmStep, () => {
      const live = ctx.store.get(key(name));
      if (live && !live.metadata.deletionTimestamp && live.metadata.generation === ext.metadata.generation)
        setStatus(live, next);
    });
  }

  const unsubscribe = ctx.store.subscribe(({ object }) => {
    if (object.kind === EXTENSION.kind && object.apiVersion.startsWith("olm.operatorframework.io/"))
      queue.add(object.metadata.name);
    else if (object.kind === "ServiceAccount" || object.kind === "Namespace" || object.kind === CATALOG.kind)
      for (const e of ctx.store.list(EXTENSION.apiVersion, EXTENSION.kind)) queue.add(e.metadata.name);
    else if (object.metadata.labels?.[OWNER_KIND] === "ClusterExtension")
      queue.add(object.metadata.labels[OWNER_NAME]);
  });
  for (const e of ctx.store.list(EXTENSION.apiVersion, EXTENSION.kind)) queue.add(e.metadata.name);
  return unsubscribe;
}
