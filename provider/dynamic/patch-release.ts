import { CustomResourceOptions, dynamic, Input, Output, secret } from "@pulumi/pulumi";
import { Earlier, keepEarlier, PatchTarget, recordEarlier, restoreEarlier } from "../waiting/release";
import { changedInputs, CheckFailure, checkCommon, checkName, UNKNOWN, waiterOptions } from "./common";
import { clusterServer, currentCredentials, explainRejectedCredentials } from "./credentials";
import { carriedProvider, ProviderOf } from "./schema";
import * as self from "./patch-release";

/** How long reading or restoring the object may take. */
const TIMEOUT_MS = 120_000;

interface PatchReleaseInputs {
  kubeconfig: string;
  target: PatchTarget;
  paths: string[][];
  fieldManager?: string;
}

interface PatchReleaseProps extends PatchReleaseInputs {
  earlier: Earlier;
}

function checkTarget(target: unknown): CheckFailure[] {
  if (target === UNKNOWN) return [];
  const t = (target ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => typeof v === "string" && v !== "";
  if (!text(t.apiVersion) || !text(t.kind))
    return [{ property: "target", reason: "target must be { apiVersion, kind, name, namespace? }" }];
  return [
    ...checkName({ name: t.name }, "name").map((f) => ({ ...f, property: "target.name" })),
    ...checkName({ namespace: t.namespace }, "namespace", false).map((f) => ({
      ...f,
      property: "target.namespace",
    })),
  ];
}

function checkPaths(paths: unknown): CheckFailure[] {
  if (paths === UNKNOWN) return [];
  const valid =
    Array.isArray(paths) &&
    paths.length > 0 &&
    paths.every((p) => Array.isArray(p) && p.length > 0 && p.every((k) => typeof k === "string" && k !== ""));
  return valid
    ? []
    : [{ property: "paths", reason: 'paths must list field paths, e.g. [["spec", "replicas"]]' }];
}

/**
 * The provider of `PatchRelease`: create reads the earlier values, update reads those of paths added,
 * delete restores (see ../waiting/release.ts); read keeps what create saw, which a refresh cannot see
 * again once the patch applied.
 */
export const patchReleaseProvider: dynamic.ResourceProvider = {
  async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
    const failures = [
      ...checkCommon(news),
      ...checkTarget(news.target),
      ...checkPaths(news.paths),
      ...checkFieldManager(news.fieldManager),
    ];
    return { inputs: news, failures };
  },
  async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const server = (k: unknown) => (typeof k === "string" && k !== UNKNOWN ? clusterServer(k) : undefined);
    const before = server(olds.kubeconfig);
    const after = server(news.kubeconfig);
    // Another object or another cluster: what was read before belongs to that one.
    const replaces = [
      ...changedInputs(olds, news, ["target"]),
      ...(before !== undefined && after !== undefined && before !== after ? ["kubeconfig"] : []),
    ];
    const changes = replaces.length > 0 || changedInputs(olds, news, ["paths", "fieldManager"]).length > 0;
    return { changes, replaces, deleteBeforeReplace: false };
  },
  async create(inputs: PatchReleaseInputs) {
    const earlier = await recordEarlier({ ...inputs, timeoutMs: TIMEOUT_MS });
    return { id: releaseId(inputs.target), outs: { ...inputs, earlier } };
  },
  async update(_id: string, olds: PatchReleaseProps, news: PatchReleaseInputs) {
    // A path kept keeps its earlier value: the cluster now holds the patch's own.
    const key = (path: string[]) => JSON.stringify(path);
    const known = new Map(olds.earlier.fields.map((f) => [key(f.path), f]));
    const added = news.paths.filter((p) => !known.has(key(p)));
    const read =
      added.length > 0 ? (await recordEarlier({ ...news, paths: added, timeoutMs: TIMEOUT_MS })).fields : [];
    const fresh = new Map(read.map((f) => [key(f.path), f]));
    const fields = news.paths.map((p) => known.get(key(p)) ?? fresh.get(key(p))!);
    const earlier = { existed: olds.earlier.existed, fields };
    if (news.fieldManager !== undefined && earlier.existed)
      await keepEarlier({ ...news, fieldManager: news.fieldManager, earlier, timeoutMs: TIMEOUT_MS });
    return { outs: { ...news, earlier } };
  },
  async read(id: string, props: PatchReleaseProps) {
    return { id, props };
  },
  async delete(_id: string, props: PatchReleaseProps) {
    const credentials = currentCredentials(props.kubeconfig);
    const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
    const name = releaseId(props.target);
    if (credentials.note) void log.warn(`PatchRelease ${name}: ${credentials.note}`);
    const done = await restoreEarlier({
      ...props,
      kubeconfig: credentials.kubeconfig,
      timeoutMs: TIMEOUT_MS,
    }).catch((e: unknown) => {
      throw explainRejectedCredentials(e, credentials.source);
    });
    for (const line of done) void log.info(`PatchRelease ${name}: ${line}`);
  },
};

/** A field manager as the API server takes it (apiserver's ValidateManagedFields: at most 128 characters). */
function checkFieldManager(manager: unknown): CheckFailure[] {
  if (manager === undefined || manager === UNKNOWN) return [];
  return typeof manager === "string" && manager !== "" && manager.length <= 128
    ? []
    : [{ property: "fieldManager", reason: "fieldManager must be a name of 1 to 128 characters" }];
}

function releaseId(target: PatchTarget): string {
  return `release/${target.kind}/${target.namespace ? `${target.namespace}/` : ""}${target.name}`;
}

export interface PatchReleaseArgs {
  /** Kubeconfig YAML of the cluster of the patched object; stored as a secret whatever is passed. */
  kubeconfig: Input<string>;
  /** The object the patch writes to. */
  target: Input<PatchTarget>;
  /** The fields the patch writes, each as its keys, e.g. `["spec", "replicas"]`. */
  paths: Input<Input<string>[][]>;
  /**
   * The patch's field manager, as its `pulumi.com/patchFieldManager` annotation names it. With it, what
   * was read is also kept on the object, so that the stack adopting the patch after its state was lost
   * still gives back what was there before the patch first applied.
   */
  fieldManager?: Input<string>;
}

/**
 * Gives back, when a patch of an object the cluster owns is destroyed, what the patch took: declare it
 * before the patch and make the patch depend on it. On create it reads the fields the patch will write;
 * on delete (after the patch was released) it puts back each earlier value the release removed, or
 * deletes the object when the patch created it and nothing else was written to it.
 */
export class PatchRelease extends dynamic.Resource {
  declare readonly earlier: Output<Earlier>;
  constructor(name: string, args: PatchReleaseArgs, opts?: CustomResourceOptions) {
    super(
      carriedProvider(patchReleaseProvider, (): ProviderOf => self.patchReleaseProvider),
      name,
      {
        kubeconfig: secret(args.kubeconfig),
        target: args.target,
        paths: args.paths,
        fieldManager: args.fieldManager,
        earlier: undefined,
      },
      waiterOptions(opts),
      undefined,
      "PatchRelease",
    );
  }
}
