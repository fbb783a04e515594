/**
 * Pulumi's wire form of a secret, as the mock runtime hands resource inputs over:
 * `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }`. The harness keeps
 * the marker wherever a value is stored and strips it only where a provider or the cluster needs the value.
 */

export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export interface SecretValue {
  [SECRET_SIG_KEY]: typeof SECRET_SIG;
  value: unknown;
}

export function isSecret(value: unknown): value is SecretValue {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG
  );
}

export function secret(value: unknown): SecretValue {
  return { [SECRET_SIG_KEY]: SECRET_SIG, value };
}

/** The value with every secret marker removed (what the dynamic-provider host and the API server get). */
export function reveal(value: unknown): unknown {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  }
  return value;
}

/** The value with every secret replaced by a placeholder: safe to print or to write into a manifest. */
export function redact(value: unknown, placeholder = "[secret]"): unknown {
  if (isSecret(value)) return placeholder;
  if (Array.isArray(value)) return value.map((v) => redact(v, placeholder));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, placeholder)]));
  }
  return value;
}

/** Top-level keys of `inputs` that hold a secret. */
export function secretKeys(inputs: Record<string, unknown>): string[] {
  return Object.keys(inputs).filter((k) => isSecret(inputs[k]));
}

/** Marks the named top-level values secret, as the engine marks outputs of secret inputs and additional secret outputs. */
export function markSecret(values: Record<string, unknown>, keys: Iterable<string>): Record<string, unknown> {
  const marked = { ...values };
  for (const key of keys) {
    if (key in marked && marked[key] !== undefined && !isSecret(marked[key]))
      marked[key] = secret(marked[key]);
  }
  return marked;
}

/**
 * `value` with a secret wherever `like` (what it was read back for) has one, as the Kubernetes provider
 * marks the inputs it reads back: a refreshed secret input stays secret.
 */
export function annotateSecrets(value: unknown, like: unknown): unknown {
  if (value === undefined) return value;
  if (isSecret(like)) return isSecret(value) ? value : secret(reveal(value));
  if (Array.isArray(value) && Array.isArray(like)) return value.map((v, i) => annotateSecrets(v, like[i]));
  if (isPlainObject(value) && isPlainObject(like) && !isSecret(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, annotateSecrets(v, like[k])]));
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Credentials in a kubeconfig (YAML or JSON) and private keys, whatever the value they are in. */
const CREDENTIAL_FIELD =
  /((?:^|[\s{,"]|\\n)"?(?:token|client-key-data|password|id-token|refresh-token|access-token)"?\s*[:=]\s*"?)([^\s"',}\\]+)/g;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;
/** A registry credential as a pull secret holds it (`{"auths": {"<registry>": {"auth": "..."}}}`). */
const REGISTRY_AUTH = /"auths?"\s*:/;

/** Whether `text` holds a credential: a private key, a kubeconfig's token or key, a pull secret's auths. */
export function holdsCredentials(text: string): boolean {
  return [PRIVATE_KEY, CREDENTIAL_FIELD, REGISTRY_AUTH].some((pattern) =>
    new RegExp(pattern.source).test(text),
  );
}

/** Shorter secret values are left to the patterns: replacing them everywhere would garble messages. */
const SHORTEST = 8;

/**
 * What the harness prints passes through here first, at every verbosity: the SDK's debug lines print
 * its gRPC responses (a resource's outputs, kubeconfigs among them) as the CLI's `--debug` shows them.
 * Every secret value the deployment has seen is replaced wherever it appears, as written and as JSON
 * escapes it, and so are kubeconfig credentials and private keys that were never marked secret (a
 * kubeconfig file a provider read).
 */
export class Redactor {
  private readonly values = new Set<string>();

  /** Remembers every secret value inside `value`; `secretAlready` takes `value` whole as one. */
  add(value: unknown, secretAlready = false): void {
    if (isSecret(value)) return this.add(value.value, true);
    if (typeof value === "string") {
      if (secretAlready && value.length >= SHORTEST) this.values.add(value);
    } else if (Array.isArray(value)) {
      for (const v of value) this.add(v, secretAlready);
    } else if (value !== null && typeof value === "object") {
      for (const v of Object.values(value)) this.add(v, secretAlready);
    }
  }

  text(message: string): string {
    let out = message;
    // Longest first: a secret that contains another is replaced whole.
    for (const value of [...this.values].sort((a, b) => b.length - a.length)) {
      for (const form of new Set([value, JSON.stringify(value).slice(1, -1)]))
        out = out.split(form).join("[secret]");
    }
    return out.replace(PRIVATE_KEY, "[secret]").replace(CREDENTIAL_FIELD, "$1[secret]");
  }
}
