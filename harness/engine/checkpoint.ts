/**
 * Stack state as Pulumi's backends keep it: the deployment checkpoint that `pulumi stack export`
 * prints (version 3: resources with URN, type, id, inputs, outputs, parent, dependencies and property
 * dependencies, in dependency order). Secrets are encrypted as the passphrase secrets provider encrypts
 * them (AES-256-GCM under a PBKDF2 key from $PULUMI_CONFIG_PASSPHRASE, empty when unset, and the salt
 * in `secrets_providers.state.salt`), so the file holds no plaintext secret. In memory, secrets are
 * `{ <sig>: <secret sig>, value }` as on the wire.
 */
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes, randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isSecret, secret, SECRET_SIG, SECRET_SIG_KEY } from "../secrets";
import type { Props } from "./rpc";

export interface CheckpointResource {
  urn: string;
  custom: boolean;
  id?: string;
  type: string;
  inputs?: Props;
  outputs?: Props;
  parent?: string;
  /** `urn::id` of the provider that manages it (custom resources). */
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  additionalSecretOutputs?: string[];
  /** Property paths the program's `ignoreChanges` names: a refresh shows no drift there (as ResourceV3). */
  ignoreChanges?: string[];
  /** `customTimeouts` in seconds (ResourceV3 keeps them for the delete of a resource no longer declared). */
  customTimeouts?: { create?: number; update?: number; delete?: number };
  protect?: boolean;
  retainOnDelete?: boolean;
  /** The id the resource was imported with (`import` option). */
  importID?: string;
  /** Why a resource its provider made did not initialize; the next `up` updates it (ResourceV3). */
  initErrors?: string[];
}

/** What a step was doing when the state was written (apitype.OperationType). */
export type OperationType = "creating" | "updating" | "deleting" | "reading" | "importing";

/**
 * A step under way, recorded before it starts and dropped once it ends (the snapshot manager's
 * markOperationPending and markOperationComplete): one left in a checkpoint is an operation a killed
 * process never finished (apitype.OperationV2).
 */
export interface PendingOperation {
  resource: CheckpointResource;
  type: OperationType;
}

export interface Checkpoint {
  version: 3;
  deployment: {
    manifest: { time: string; magic: string; version: string };
    secrets_providers: { type: "passphrase"; state: { salt: string } };
    resources: CheckpointResource[];
    pending_operations?: PendingOperation[];
  };
}

export const PULUMI_VERSION = "v3.248.0";
const ITERATIONS = 1_000_000;
const keys = new Map<string, Buffer>();

function keyFor(salt: Buffer): Buffer {
  const passphrase = process.env.PULUMI_CONFIG_PASSPHRASE ?? "";
  const id = `${passphrase}\0${salt.toString("base64")}`;
  let key = keys.get(id);
  if (!key) {
    key = pbkdf2Sync(passphrase, salt, ITERATIONS, 32, "sha256");
    keys.set(id, key);
  }
  return key;
}

function encrypt(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

function decrypt(key: Buffer, ciphertext: string): string {
  const [version, nonce, sealed] = ciphertext.split(":");
  if (version !== "v1" || !nonce || !sealed)
    throw new Error("a secret in the checkpoint is not v1 ciphertext");
  const data = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}

/** The salt this process gives new stacks, per passphrase. */
const salts = new Map<string, string>();

/**
 * A new stack's salt. The CLI draws one per stack; here the stacks one process creates share one per
 * passphrase, since each new salt costs a million PBKDF2 rounds (a quarter second of CPU), which the
 * test suite's hundred stacks would pay again and again. Each checkpoint still carries its salt, so
 * any reader (the CLI included) derives the key as from its own.
 */
function newSalt(): string {
  const passphrase = process.env.PULUMI_CONFIG_PASSPHRASE ?? "";
  let state = salts.get(passphrase);
  if (!state) {
    const salt = randomBytes(8);
    state = `v1:${salt.toString("base64")}:${encrypt(keyFor(salt), "pulumi")}`;
    salts.set(passphrase, state);
  }
  return state;
}

function saltKey(state: string): Buffer {
  const [, salt, ...check] = state.split(":");
  const key = keyFor(Buffer.from(salt, "base64"));
  try {
    if (decrypt(key, check.join(":")) === "pulumi") return key;
  } catch {
    // A wrong passphrase fails authentication; reported below.
  }
  throw new Error(
    "the checkpoint's secrets were encrypted with another passphrase ($PULUMI_CONFIG_PASSPHRASE)",
  );
}

function mapSecrets(value: unknown, fn: (s: Record<string, unknown>) => unknown): unknown {
  // Plaintext (`value`) in memory, `ciphertext` on disk: both carry the signature.
  if (isSecret(value)) return fn(value as unknown as Record<string, unknown>);
  if (Array.isArray(value)) return value.map((v) => mapSecrets(v, fn));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapSecrets(v, fn)]));
  return value;
}

export function emptyCheckpoint(): Checkpoint {
  return {
    version: 3,
    deployment: {
      manifest: { time: new Date().toISOString(), magic: "", version: PULUMI_VERSION },
      secrets_providers: { type: "passphrase", state: { salt: "" } },
      resources: [],
    },
  };
}

/** The checkpoint in `file` with its secrets decrypted, or an empty one. */
export function loadCheckpoint(file: string | undefined): Checkpoint {
  if (!file || !fs.existsSync(file)) return emptyCheckpoint();
  const checkpoint = JSON.parse(fs.readFileSync(file, "utf8")) as Checkpoint;
  if (checkpoint.version !== 3 || !Array.isArray(checkpoint.deployment?.resources)) {
    throw new Error(`${file} is not a Pulumi deployment checkpoint (version 3)`);
  }
  const salt = checkpoint.deployment.secrets_providers?.state?.salt;
  if (!salt) return checkpoint;
  const key = saltKey(salt);
  const decrypted = (s: Record<string, unknown>) =>
    "ciphertext" in s ? secret(JSON.parse(decrypt(key, String(s.ciphertext)))) : s;
  const resources = mapSecrets(checkpoint.deployment.resources, decrypted) as CheckpointResource[];
  const pending = mapSecrets(checkpoint.deployment.pending_operations, decrypted) as
    PendingOperation[] | undefined;
  return {
    ...checkpoint,
    deployment: { ...checkpoint.deployment, resources, ...(pending ? { pending_operations: pending } : {}) },
  };
}

/** Writes the checkpoint with every secret encrypted, readable by its owner only. */
export function saveCheckpoint(file: string, checkpoint: Checkpoint): void {
  const salt = checkpoint.deployment.secrets_providers.state.salt || newSalt();
  const key = saltKey(salt);
  const encrypted = (s: Record<string, unknown>) => ({
    [SECRET_SIG_KEY]: SECRET_SIG,
    ciphertext: "ciphertext" in s ? s.ciphertext : encrypt(key, JSON.stringify(s.value ?? null)),
  });
  const resources = mapSecrets(checkpoint.deployment.resources, encrypted);
  const pending = mapSecrets(checkpoint.deployment.pending_operations ?? [], encrypted) as PendingOperation[];
  const written: Checkpoint = {
    version: 3,
    deployment: {
      manifest: { ...checkpoint.deployment.manifest, time: new Date().toISOString() },
      secrets_providers: { type: "passphrase", state: { salt } },
      resources: resources as CheckpointResource[],
      // omitempty, as the CLI writes it.
      ...(pending.length > 0 ? { pending_operations: pending } : {}),
    },
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(written, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
  checkpoint.deployment.secrets_providers.state.salt = salt;
}

/** The resource's name: the last part of its URN. */
export function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** Where the locks of the stack whose checkpoint is `file` live, as the diy backend keeps `.pulumi/locks/<stack>/`. */
export function lockDir(file: string): string {
  return path.join(path.dirname(file), ".locks", path.basename(file));
}

/**
 * Locks the stack for one operation, as the diy backend's Lock: a file per lock; another one fails the
 * operation naming it (the lock of a process that died stays until deleted, as with the CLI). Returns
 * the release.
 */
export function lockStack(file: string): () => void {
  const dir = lockDir(file);
  fs.mkdirSync(dir, { recursive: true });
  const mine = path.join(dir, `${randomUUID()}.json`);
  const content = {
    pid: process.pid,
    username: os.userInfo().username,
    hostname: os.hostname(),
    timestamp: new Date().toISOString(),
  };
  fs.writeFileSync(mine, JSON.stringify(content));
  // Written before looking, so that of two operations started at once at most one goes ahead.
  const others = fs
    .readdirSync(dir)
    .map((f) => path.join(dir, f))
    .filter((f) => f !== mine);
  if (others.length > 0) {
    fs.rmSync(mine, { force: true });
    const holders = others.map((f) => {
      try {
        const l = JSON.parse(fs.readFileSync(f, "utf8")) as typeof content;
        return `\n  ${f}: created by ${l.username}@${l.hostname} (pid ${l.pid}) at ${l.timestamp}`;
      } catch {
        return `\n  ${f}`;
      }
    });
    throw new Error(
      `the stack is currently locked by ${others.length} lock(s). Either wait for the other process(es) to end or delete the lock file with \`pulumi cancel\`.${holders.join("")}`,
    );
  }
  return () => fs.rmSync(mine, { force: true });
}

/**
 * `pulumi cancel` with the diy backend (CancelCurrentUpdate): deletes every lock of the stack, whoever
 * holds it, so that the next operation goes ahead. The operation that held one is not stopped; it is
 * for a lock left by a process that died. Returns how many locks were deleted.
 */
export function cancelStack(file: string): number {
  const dir = lockDir(file);
  if (!fs.existsSync(dir)) return 0;
  const locks = fs.readdirSync(dir);
  for (const lock of locks) fs.rmSync(path.join(dir, lock), { force: true });
  return locks.length;
}
