import { InputError } from "../errors";
import { decodeBase64 } from "./dataurl";

/** Key types OpenSSH accepts in authorized_keys today (DSA is gone from current OpenSSH and RHEL). */
export const SSH_KEY_TYPES = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
] as const;

/**
 * One public key line, `<type> <base64> [comment]`, as `ssh-keygen` writes it into `*.pub`. The base64 blob
 * must start with the same type name: that catches a key pasted with the wrong prefix or cut short, which
 * the node would otherwise ignore silently. authorized_keys options are not accepted: the MCO writes the
 * lines for `core` as they are, and options there are rarely what a cluster admin wants. Returns the line
 * trimmed.
 */
export function requireSshPublicKey(path: string, value: unknown): string {
  // Surrounding whitespace goes: a line read from a .pub file ends in a newline.
  const line = typeof value === "string" ? value.trim() : "";
  const [type, blob] = line.split(/\s+/);
  const bytes = blob === undefined ? undefined : decodeBase64(blob);
  const blobType =
    bytes && bytes.length >= 4 ? bytes.subarray(4, 4 + bytes.readUInt32BE(0)).toString("latin1") : undefined;
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type) || blobType !== type || /[\r\n]/.test(line)) {
    throw new InputError(
      path,
      `is not an SSH public key line: use "<type> <base64> [comment]" on one line, with type one of ${SSH_KEY_TYPES.join(", ")}`,
    );
  }
  return line;
}
