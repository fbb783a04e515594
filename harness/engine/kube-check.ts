/**
 * What pulumi-kubernetes' Check and checkpoint do to a Kubernetes resource's inputs and state
 * (provider.go; metadata/naming.go): an unnamed object gets the resource's name and a random suffix,
 * kept on later revisions and drawn anew for a replacement; Patch resources must be named; the state's
 * outputs carry the inputs they were written for, the field manager the resource applies with and its
 * first apiVersion.
 */
import { randomBytes } from "node:crypto";
import { isObject } from "../../primitives/objects";
import { fieldManager } from "../kube";
import { isSecret, reveal, secret } from "../secrets";
import { nameOf } from "./checkpoint";
import type { Props } from "./rpc";

const AUTONAMED_ANNOTATION = "pulumi.com/autonamed";
const PATCH_FIELD_MANAGER_ANNOTATION = "pulumi.com/patchFieldManager";
export const FIELD_MANAGER_KEY = "__fieldManager";
export const INITIAL_API_VERSION_KEY = "__initialApiVersion";
export const INPUTS_KEY = "__inputs";

/** `prefix` and 8 random hex characters, as resource.NewUniqueName draws a name. */
const uniqueName = (prefix: string) => `${prefix}${randomBytes(4).toString("hex")}`;

interface Metadata {
  name?: unknown;
  generateName?: unknown;
  annotations?: Record<string, unknown>;
}

const metadataOf = (inputs: Props | undefined): Metadata => {
  const metadata = reveal(inputs?.metadata);
  return (isObject(metadata) ? metadata : {}) as Metadata;
};

/** Whether the object is named, with a known or an unknown name (metadata.IsNamed). */
const isNamed = (inputs: Props) => {
  const name = metadataOf(inputs).name;
  return typeof name === "string" && name !== "";
};

export const isAutonamed = (inputs: Props | undefined) =>
  reveal(metadataOf(inputs).annotations?.[AUTONAMED_ANNOTATION]) === "true";

/** The inputs with `name` as an autoname; metadata given as a secret stays secret. */
function withName(inputs: Props, name: unknown): Props {
  const metadata = metadataOf(inputs);
  const named = {
    ...metadata,
    name,
    annotations: { ...metadata.annotations, [AUTONAMED_ANNOTATION]: "true" },
  };
  return { ...inputs, metadata: isSecret(inputs.metadata) ? secret(named) : named };
}

/**
 * The inputs as Check returns them: named as given; unnamed, the old object's autoname
 * (AdoptOldAutonameIfUnnamed) or, without old inputs, a new one (AssignNameIfAutonamable). The engine
 * checks a replacement again without old inputs (step_generator.go), so it gets a new name. Throws
 * Check's errors.
 */
export function checkKubeInputs(urn: string, patch: boolean, news: Props, olds: Props | undefined): Props {
  const named = isNamed(news);
  if (patch && !named) throw new Error("patch resources require the `.metadata.name` field to be set");
  if (named) return news;
  if (metadataOf(news).generateName !== undefined) {
    throw new Error("the `.metadata.generateName` field is not supported in Server-Side Apply mode");
  }
  if (olds) return isAutonamed(olds) ? withName(news, metadataOf(olds).name) : news;
  return withName(news, uniqueName(`${nameOf(urn)}-`));
}

/**
 * The field manager a resource applies with (fieldManagerName): the `pulumi.com/patchFieldManager`
 * annotation, else the one kept in its state, else a new random one. A state without one was written
 * by an earlier release of the harness, whose name came from the URN.
 */
export function fieldManagerName(urn: string, inputs: Props, state: Props | undefined): string {
  const annotated = reveal(metadataOf(inputs).annotations?.[PATCH_FIELD_MANAGER_ANNOTATION]);
  if (typeof annotated === "string" && annotated !== "") return annotated;
  const kept = state?.[FIELD_MANAGER_KEY];
  if (typeof kept === "string") return kept;
  return state ? fieldManager(urn) : uniqueName("pulumi-kubernetes-");
}

/**
 * The live object as pulumi-kubernetes checkpoints it (checkpointObject): with the inputs it was
 * written for (secrets kept secret), its field manager and its first apiVersion.
 */
export function checkpointObject(
  inputs: Props,
  live: Props,
  fieldManager: string,
  state: Props | undefined,
): Props {
  const initial = state?.[INITIAL_API_VERSION_KEY] ?? live.apiVersion;
  return {
    ...live,
    [INPUTS_KEY]: inputs,
    [INITIAL_API_VERSION_KEY]: initial,
    [FIELD_MANAGER_KEY]: fieldManager,
  };
}

/**
 * A state's live object and the inputs it kept, as parseCheckpointObject splits them. A state without
 * `__inputs` was written by a release of the harness that kept none: its inputs are the engine's, which
 * are what pulumi-kubernetes would have kept.
 */
export function parseCheckpointObject(outputs: Props, engineInputs: Props): { inputs: Props; live: Props } {
  const { [INPUTS_KEY]: kept, [INITIAL_API_VERSION_KEY]: _a, [FIELD_MANAGER_KEY]: _m, ...live } = outputs;
  return { inputs: kept === undefined ? engineInputs : (kept as Props), live };
}
