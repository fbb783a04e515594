/**
 * The Kubernetes protobuf encodings the simulator needs: decoding the built-in kinds kubectl's
 * generators send as protobuf (`kubectl create namespace|configmap|secret`; everything else kubectl
 * sends is JSON, so a small decoder over k8s.io/api's generated.proto field numbers covers it, and other
 * kinds get 415), and encoding the `/openapi/v2` document client-go insists on reading as protobuf.
 */

/** A protobuf body that cannot be decoded; the server answers 400 (or 415 for unsupported kinds). */
export class ProtobufError extends Error {
  constructor(
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
  }
}

type Field = number | bigint | Buffer;

/** Splits a message into its fields (field number -> values in order). */
function fields(buffer: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (offset >= buffer.length) throw new ProtobufError("truncated varint");
      const byte = buffer[offset++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError("varint too long");
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    let value: Field;
    if (wire === 0) {
      value = varint();
    } else if (wire === 2) {
      const length = Number(varint());
      if (offset + length > buffer.length) throw new ProtobufError("truncated field");
      value = buffer.subarray(offset, offset + length);
      offset += length;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (offset + size > buffer.length) throw new ProtobufError("truncated fixed field");
      value = buffer.subarray(offset, offset + size);
      offset += size;
    } else {
      throw new ProtobufError(`unsupported wire type ${wire}`);
    }
    if (field === 0) throw new ProtobufError("field number 0");
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  return out;
}

function bytes(value: Field | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  if (!Buffer.isBuffer(value)) throw new ProtobufError("expected a length-delimited field");
  return value;
}

function str(value: Field | undefined): string | undefined {
  return bytes(value)?.toString("utf8");
}

function int(value: Field | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "bigint") throw new ProtobufError("expected a varint field");
  return Number(BigInt.asIntN(64, value));
}

function bool(value: Field | undefined): boolean | undefined {
  const n = int(value);
  return n === undefined ? undefined : n !== 0;
}

function stringMap(values: Field[] | undefined, valueAsBase64 = false): Record<string, string> | undefined {
  if (!values) return undefined;
  const out: Record<string, string> = {};
  for (const entry of values) {
    const f = fields(bytes(entry)!);
    const key = str(f.get(1)?.[0]) ?? "";
    const raw = bytes(f.get(2)?.[0]) ?? Buffer.alloc(0);
    out[key] = valueAsBase64 ? raw.toString("base64") : raw.toString("utf8");
  }
  return out;
}

function time(value: Field | undefined): string | undefined {
  const b = bytes(value);
  if (!b) return undefined;
  const seconds = int(fields(b).get(1)?.[0]) ?? 0;
  return new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
}

function compact(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

function objectMeta(buffer: Buffer | undefined): Record<string, unknown> {
  if (!buffer) return {};
  const f = fields(buffer);
  const one = (n: number) => f.get(n)?.[0];
  return compact({
    name: str(one(1)),
    generateName: str(one(2)),
    namespace: str(one(3)),
    uid: str(one(5)),
    resourceVersion: str(one(6)),
    generation: int(one(7)),
    creationTimestamp: time(one(8)),
    labels: stringMap(f.get(11)),
    annotations: stringMap(f.get(12)),
    ownerReferences: f.get(13)?.map((ref) => {
      const r = fields(bytes(ref)!);
      return compact({
        kind: str(r.get(1)?.[0]),
        name: str(r.get(3)?.[0]),
        uid: str(r.get(4)?.[0]),
        apiVersion: str(r.get(5)?.[0]),
        controller: bool(r.get(6)?.[0]),
        blockOwnerDeletion: bool(r.get(7)?.[0]),
      });
    }),
    finalizers: f.get(14)?.map((v) => str(v)!),
  });
}

const DECODERS: Record<string, (f: Map<number, Field[]>) => Record<string, unknown>> = {
  Namespace: (f) => {
    const spec = bytes(f.get(2)?.[0]);
    return compact({
      metadata: objectMeta(bytes(f.get(1)?.[0])),
      spec: spec
        ? compact({
            finalizers: fields(spec)
              .get(1)
              ?.map((v) => str(v)!),
          })
        : undefined,
    });
  },
  ConfigMap: (f) =>
    compact({
      metadata: objectMeta(bytes(f.get(1)?.[0])),
      data: stringMap(f.get(2)),
      binaryData: stringMap(f.get(3), true),
      immutable: bool(f.get(4)?.[0]),
    }),
  Secret: (f) =>
    compact({
      metadata: objectMeta(bytes(f.get(1)?.[0])),
      data: stringMap(f.get(2), true),
      type: str(f.get(3)?.[0]),
      stringData: stringMap(f.get(4)),
      immutable: bool(f.get(5)?.[0]),
    }),
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a `application/vnd.kubernetes.protobuf` body into the JSON form of the object. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufError("protobuf body does not start with the k8s magic number");
  }
  const unknown = fields(body.subarray(MAGIC.length));
  const typeMeta = fields(bytes(unknown.get(1)?.[0]) ?? Buffer.alloc(0));
  const apiVersion = str(typeMeta.get(1)?.[0]) ?? "";
  const kind = str(typeMeta.get(2)?.[0]) ?? "";
  const decoder = apiVersion === "v1" ? DECODERS[kind] : undefined;
  if (!decoder) throw new ProtobufError(`protobuf is not supported for ${apiVersion}/${kind}`, true);
  return { apiVersion, kind, ...decoder(fields(bytes(unknown.get(2)?.[0]) ?? Buffer.alloc(0))) };
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let n = value;
  do {
    bytes.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.from(bytes);
}

function lengthDelimited(field: number, content: Buffer | string): Buffer {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8");
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
}

/**
 * `/openapi/v2` as client-go's `OpenAPISchema()` reads it: a gnostic `openapi.v2.Document` in protobuf
 * (swagger = 1, info = 2 {title = 1, version = 2}, paths = 8, definitions = 9). Definitions are left
 * empty on purpose: clients that validate against them (kubectl before 1.27, pulumi-kubernetes' Check)
 * skip kinds they find no schema for, and the server validates custom resources itself.
 */
export function openApiV2Protobuf(version: string): Buffer {
  return Buffer.concat([
    lengthDelimited(1, "2.0"),
    lengthDelimited(2, Buffer.concat([lengthDelimited(1, "Kubernetes"), lengthDelimited(2, version)])),
    lengthDelimited(8, Buffer.alloc(0)),
    lengthDelimited(9, Buffer.alloc(0)),
  ]);
}
