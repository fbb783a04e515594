/**
 * Node disruption policies a program declares: entries of `spec.nodeDisruptionPolicy` of
 * `machineconfigurations.operator.openshift.io/cluster`, checked as the CRD checks them (openshift/api
 * operator/v1 types_machineconfiguration.go, NodeDisruptionPolicyConfig, NodeDisruptionPolicySpecFile,
 * NodeDisruptionPolicySpecUnit, NodeDisruptionPolicySpecSSHKey, NodeDisruptionPolicySpecAction and their
 * kubebuilder markers and CEL rules, as in the CRD the MCO ships), and rendered as the patch a
 * component applies with its own field manager: the files and units lists are maps keyed by path and
 * name, so the patch owns its own entries and no other.
 */
import { InputError, InputErrors } from "../errors";
import type { DisruptionAction, FilePolicy, NodeDisruptionPolicy, UnitPolicy } from "../rollout-impact/rules";
import { DISRUPTION_ACTION_TYPES } from "../rollout-impact/rules";
import { requireOneOf } from "../validation";
import { UNIT_SUFFIXES } from "./machineconfig";

export const MACHINE_CONFIGURATION_API_VERSION = "operator.openshift.io/v1";

/** The suffixes the CRD's CEL rule allows a service name to end in: Ignition's unit types and `.snapshot`. */
export const SERVICE_SUFFIXES = [...UNIT_SUFFIXES, ".snapshot"] as const;
/** `+kubebuilder:validation:MaxItems=50` on files and units of the spec. */
export const MAX_POLICY_ENTRIES = 50;
/** `+kubebuilder:validation:MaxItems=10` on every actions list. */
export const MAX_POLICY_ACTIONS = 10;
/** `+kubebuilder:validation:MaxLength=255` on service names. */
export const MAX_SERVICE_NAME = 255;

const SUFFIX = new RegExp(`\\.(${SERVICE_SUFFIXES.map((s) => s.slice(1)).join("|")})$`);
// The CRD's rule `^[a-zA-Z0-9:._\\-]+\..`: letters, digits and `:._\-` before the suffix.
const SERVICE_NAME = /^[a-zA-Z0-9:._\\-]+\../;

export interface NodeDisruptionPolicyArgs {
  /** What a node does when a file at `path` (or under it, for a directory) changes. */
  files?: FilePolicy[];
  /** What a node does when the systemd unit `name` changes. */
  units?: UnitPolicy[];
  /** What a node does when the `core` user's SSH keys change. */
  sshkey?: { actions: DisruptionAction[] };
}

export interface NodeDisruptionPolicyManifest {
  apiVersion: typeof MACHINE_CONFIGURATION_API_VERSION;
  kind: "MachineConfiguration";
  metadata: { name: "cluster" };
  spec: { nodeDisruptionPolicy: NodeDisruptionPolicy };
}

/** The CEL rules on a service name (Reload, Restart and units' names), with the CRD's messages in short. */
export function serviceNameProblems(path: string, name: unknown): InputError[] {
  if (typeof name !== "string" || name === "")
    return [
      new InputError(path, `must be a service name such as "crio.service", got ${JSON.stringify(name)}`),
    ];
  const problems: InputError[] = [];
  if (name.length > MAX_SERVICE_NAME)
    problems.push(
      new InputError(path, `may have at most ${MAX_SERVICE_NAME} characters, got ${name.length}`),
    );
  if (!SUFFIX.test(name))
    problems.push(
      new InputError(
        path,
        `${JSON.stringify(name)} must end in a unit type: one of ${SERVICE_SUFFIXES.join(", ")}`,
      ),
    );
  else if (!SERVICE_NAME.test(name))
    problems.push(
      new InputError(
        path,
        `${JSON.stringify(name)} must have a name of letters, digits, ':', '-', '_', '.' or '\\' before its unit type`,
      ),
    );
  return problems;
}

/** One action: its type, and `reload`/`restart` required with Reload/Restart and forbidden otherwise. */
function actionProblems(path: string, action: DisruptionAction): InputError[] {
  if (action === null || typeof action !== "object" || Array.isArray(action))
    return [
      new InputError(path, `must be an action such as { type: "None" }, got ${JSON.stringify(action)}`),
    ];
  const problems: InputError[] = [];
  try {
    requireOneOf(`${path}.type`, action.type, DISRUPTION_ACTION_TYPES);
  } catch (e) {
    problems.push(...InputErrors.of(e));
  }
  for (const [field, type] of [
    ["reload", "Reload"],
    ["restart", "Restart"],
  ] as const) {
    const given = action[field] !== undefined;
    if (action.type === type && !given)
      problems.push(new InputError(`${path}.${field}`, `is required with type ${type}: { serviceName }`));
    else if (action.type !== type && given)
      problems.push(new InputError(`${path}.${field}`, `is only allowed with type ${type}`));
    else if (given)
      problems.push(...serviceNameProblems(`${path}.${field}.serviceName`, action[field]?.serviceName));
  }
  const extra = Object.keys(action).filter((k) => !["type", "reload", "restart"].includes(k));
  for (const k of extra)
    problems.push(new InputError(`${path}.${k}`, "is not a field of an action: use type, reload, restart"));
  return problems;
}

/** An actions list: at most 10, and Reboot or None only alone (the CRD's CEL rules on the list). */
export function actionsProblems(path: string, actions: unknown): InputError[] {
  if (!Array.isArray(actions))
    return [
      new InputError(
        path,
        `must be a list of actions, e.g. [{ type: "None" }], got ${JSON.stringify(actions)}`,
      ),
    ];
  const problems = actions.flatMap((a, i) => actionProblems(`${path}[${i}]`, a as DisruptionAction));
  if (actions.length > MAX_POLICY_ACTIONS)
    problems.push(
      new InputError(path, `may list at most ${MAX_POLICY_ACTIONS} actions, got ${actions.length}`),
    );
  for (const alone of ["Reboot", "None"]) {
    if (actions.length > 1 && actions.some((a) => (a as DisruptionAction)?.type === alone))
      problems.push(
        new InputError(
          path,
          `${alone} must be the only action: ${alone === "Reboot" ? "it overrides every other" : "it means no action at all"}`,
        ),
      );
  }
  return problems;
}

/** Entries of `files` or `units`: each keyed once, at most 50. */
function entriesProblems(
  path: string,
  entries: unknown,
  key: "path" | "name",
  keyProblems: (at: string, value: unknown) => InputError[],
): InputError[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries))
    return [new InputError(path, `must be a list, got ${JSON.stringify(entries)}`)];
  const problems: InputError[] = [];
  const seen = new Map<unknown, number>();
  entries.forEach((entry: Record<string, unknown> | null, i) => {
    const at = `${path}[${i}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      problems.push(new InputError(at, `must be { ${key}, actions }, got ${JSON.stringify(entry)}`));
      return;
    }
    problems.push(...keyProblems(`${at}.${key}`, entry[key]));
    problems.push(...actionsProblems(`${at}.actions`, entry.actions));
    for (const k of Object.keys(entry).filter((k) => k !== key && k !== "actions"))
      problems.push(new InputError(`${at}.${k}`, `is not a field of a policy: use ${key} and actions`));
    const first = seen.get(entry[key]);
    if (first !== undefined)
      problems.push(
        new InputError(
          `${at}.${key}`,
          `${JSON.stringify(entry[key])} is listed twice (also at ${path}[${first}])`,
        ),
      );
    else seen.set(entry[key], i);
  });
  if (entries.length > MAX_POLICY_ENTRIES)
    problems.push(
      new InputError(path, `may list at most ${MAX_POLICY_ENTRIES} entries, got ${entries.length}`),
    );
  return problems;
}

/**
 * A file policy's path. The CRD takes any string; Ignition writes files at absolute paths only, so a
 * relative one would match no file the MCO writes and its policy would never apply.
 */
function filePathProblems(at: string, path: unknown): InputError[] {
  if (typeof path !== "string" || path === "")
    return [new InputError(at, `must be a file or directory path, got ${JSON.stringify(path)}`)];
  if (!path.startsWith("/"))
    return [
      new InputError(
        at,
        `${JSON.stringify(path)} is not absolute: MachineConfig files are written at absolute paths, so the policy would never apply`,
      ),
    ];
  return [];
}

/** Everything wrong with the declared policies, all at once. */
export function nodeDisruptionPolicyProblems(args: NodeDisruptionPolicyArgs): InputError[] {
  if (args === null || typeof args !== "object")
    return [new InputError("", "must be { files?, units?, sshkey? }")];
  const problems = [
    ...entriesProblems("files", args.files, "path", filePathProblems),
    ...entriesProblems("units", args.units, "name", serviceNameProblems),
  ];
  if (args.sshkey !== undefined) {
    const sshkey = args.sshkey as unknown;
    if (sshkey === null || typeof sshkey !== "object" || Array.isArray(sshkey))
      problems.push(new InputError("sshkey", `must be { actions }, got ${JSON.stringify(sshkey)}`));
    else problems.push(...actionsProblems("sshkey.actions", (sshkey as { actions?: unknown }).actions));
  }
  if (args.files === undefined && args.units === undefined && args.sshkey === undefined)
    problems.push(new InputError("", "declares no policy: give files, units or sshkey"));
  return problems;
}

/** An action as the API spells it: only the fields its type takes. */
function action(a: DisruptionAction): DisruptionAction {
  if (a.type === "Reload") return { type: a.type, reload: { serviceName: a.reload!.serviceName } };
  if (a.type === "Restart") return { type: a.type, restart: { serviceName: a.restart!.serviceName } };
  return { type: a.type };
}

/**
 * The patch of `MachineConfiguration/cluster` that declares these policies, checked first (every
 * problem at once). Entries keep the order given.
 */
export function nodeDisruptionPolicyPatch(args: NodeDisruptionPolicyArgs): NodeDisruptionPolicyManifest {
  InputErrors.throwIfAny(nodeDisruptionPolicyProblems(args));
  const policy: NodeDisruptionPolicy = {};
  if (args.files) policy.files = args.files.map((f) => ({ path: f.path, actions: f.actions.map(action) }));
  if (args.units) policy.units = args.units.map((u) => ({ name: u.name, actions: u.actions.map(action) }));
  if (args.sshkey) policy.sshkey = { actions: args.sshkey.actions.map(action) };
  return {
    apiVersion: MACHINE_CONFIGURATION_API_VERSION,
    kind: "MachineConfiguration",
    metadata: { name: "cluster" },
    spec: { nodeDisruptionPolicy: policy },
  };
}

/**
 * The cluster's policies with the declared ones in place: each declared file or unit replaces the
 * cluster's entry of the same path or name (the patch owns it), others stay; a declared sshkey
 * replaces the cluster's. What the MCO then merges with its defaults (`mergeClusterPolicies`).
 */
export function withDeclaredPolicies(
  cluster: NodeDisruptionPolicy | undefined,
  declared: NodeDisruptionPolicy[],
): NodeDisruptionPolicy {
  const files = new Map((cluster?.files ?? []).map((f) => [f.path, f]));
  const units = new Map((cluster?.units ?? []).map((u) => [u.name, u]));
  let sshkey = cluster?.sshkey;
  for (const d of declared) {
    for (const f of d.files ?? []) files.set(f.path, f);
    for (const u of d.units ?? []) units.set(u.name, u);
    if (d.sshkey) sshkey = d.sshkey;
  }
  return {
    ...(files.size > 0 ? { files: [...files.values()] } : {}),
    ...(units.size > 0 ? { units: [...units.values()] } : {}),
    ...(sshkey ? { sshkey } : {}),
  };
}

/**
 * The fields of `MachineConfiguration/cluster` a release of the patch takes back, each as its keys: the
 * lists and sshkey it declares. A list the release leaves unset, or an sshkey it took over, is what
 * the PatchRelease puts back.
 */
export function policyPaths(manifest: NodeDisruptionPolicyManifest): string[][] {
  return Object.keys(manifest.spec.nodeDisruptionPolicy)
    .sort()
    .map((key) => ["spec", "nodeDisruptionPolicy", key]);
}

/** A live object's field ownership, as `metadata.managedFields` records it (FieldsV1). */
export interface ManagedFieldsOf {
  metadata: { managedFields?: Array<{ manager?: string; fieldsV1?: unknown }> };
}

/**
 * The declared files and units entries the cluster already holds from someone else: entries of a list
 * map (keyed by path and name) whose key no entry of `manager`'s owns. Applying the patch would take
 * their actions over, and its release, on destroy, would leave each entry without the actions the CRD
 * requires. `manager` is the patch's own field manager, which owns the entries it made, also after a
 * hand edit of their actions (kubectl edit takes over the actions, not the entry).
 */
export function entriesHeldByOthers(
  live: ManagedFieldsOf | undefined,
  declared: NodeDisruptionPolicy,
  manager: string,
): InputError[] {
  const held = (live as { spec?: { nodeDisruptionPolicy?: NodeDisruptionPolicy } } | undefined)?.spec
    ?.nodeDisruptionPolicy;
  if (!live || !held) return [];
  const entries = live.metadata.managedFields ?? [];
  const ownerOf = (list: "files" | "units", key: Record<string, string>): string[] =>
    entries
      .filter((e) => {
        const fields = e.fieldsV1 as Record<string, Record<string, Record<string, unknown>>> | undefined;
        const items = fields?.["f:spec"]?.["f:nodeDisruptionPolicy"]?.[`f:${list}`] as
          Record<string, unknown> | undefined;
        return items !== undefined && `k:${JSON.stringify(key)}` in items;
      })
      .map((e) => e.manager ?? "(unnamed)");
  const problems: InputError[] = [];
  const check = (list: "files" | "units", field: "path" | "name", keys: string[], given: string[]) => {
    given.forEach((key, i) => {
      if (!keys.includes(key)) return;
      const owners = ownerOf(list, { [field]: key });
      if (owners.includes(manager)) return;
      problems.push(
        new InputError(
          `${list}[${i}].${field}`,
          `MachineConfiguration cluster already has a policy for ${JSON.stringify(key)}${owners.length > 0 ? `, set by ${owners.join(", ")}` : ""}: remove it there (oc edit machineconfiguration cluster) or leave it out here; taking it over would leave it without actions once this policy is destroyed`,
        ),
      );
    });
  };
  check(
    "files",
    "path",
    (held.files ?? []).map((f) => f.path),
    (declared.files ?? []).map((f) => f.path),
  );
  check(
    "units",
    "name",
    (held.units ?? []).map((u) => u.name),
    (declared.units ?? []).map((u) => u.name),
  );
  return problems;
}
