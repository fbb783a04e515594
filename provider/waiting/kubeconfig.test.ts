import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { currentContext, staticConnection, TOKEN_FILE_REREAD_MS } from "./kubeconfig";

const SERVER = "https://api.cluster.example.com:6443";

/** A kubeconfig whose current context `x` names cluster `c` and user `u`, among others of other names. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: "other", cluster: { server: "https://api.other.example.com:6443" } },
      { name: "c", cluster: { server: SERVER, ...cluster } },
    ],
    users: [
      { name: "other", user: { token: "other-token" } },
      { name: "u", user },
    ],
    contexts: [
      { name: "y", context: { cluster: "other", user: "other" } },
      { name: "x", context: { cluster: "c", user: "u" } },
    ],
    "current-context": "x",
  });
}

const base64 = (text: string) => Buffer.from(text).toString("base64");

/**
 * client-go's clientcmd (DirectClientConfig.getContext, getCluster, getAuthInfo): the context the
 * current-context names, then its cluster and user, each by name in its list.
 */
describe("kubeconfig: the current context", () => {
  it("finds the context, cluster and user by name, not by position", () => {
    assert.deepEqual(currentContext(kubeconfig({}, { token: "t" })), {
      cluster: { server: SERVER },
      user: { token: "t" },
    });
  });

  it("finds nothing for a name no entry has, an entry without a name, or a list that is no list", () => {
    const text = stringify({
      clusters: [{ cluster: { server: "https://unnamed.example.com" } }, null],
      users: { name: "u", user: { token: "t" } },
      contexts: [{ name: "x", context: { user: "u" } }],
      "current-context": "x",
    });
    assert.deepEqual(currentContext(text), { cluster: undefined, user: undefined });
    assert.deepEqual(currentContext(stringify({ clusters: [{ name: "c", cluster: { server: SERVER } }] })), {
      cluster: undefined,
      user: undefined,
    });
  });

  it("takes an entry whose value is no mapping as absent", () => {
    const text = stringify({
      clusters: [{ name: "c", cluster: "https://api.cluster.example.com:6443" }],
      users: [{ name: "u", user: null }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    });
    assert.deepEqual(currentContext(text), { cluster: undefined, user: undefined });
  });

  it("reads an empty kubeconfig as one without a context, and refuses text that is no YAML mapping", () => {
    assert.deepEqual(currentContext(""), { cluster: undefined, user: undefined });
    assert.throws(
      () => currentContext("- a\n- b\n"),
      /^Error: not a kubeconfig: a YAML mapping is expected$/,
    );
    assert.throws(() => currentContext("just text"), /not a kubeconfig/);
  });
});

/**
 * What a request carries for a kubeconfig that holds its credentials, as the Kubernetes client applies
 * them (client-node config.ts KubeConfig.applyHTTPSOptions and applyAuthorizationHeader, config_types.ts
 * findToken; client-go clientcmd DirectClientConfig.ClientConfig: an inline token before a token file).
 */
describe("kubeconfig: a connection from the credentials it holds", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "kubeconfig-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const options = (cluster: Record<string, unknown>, user: Record<string, unknown>) =>
    staticConnection(kubeconfig(cluster, user))!.options();

  it("refuses a kubeconfig without a current cluster or with an empty server", () => {
    const none = stringify({ "current-context": "x" });
    assert.throws(() => staticConnection(none), /^Error: the kubeconfig has no current cluster$/);
    assert.throws(() => staticConnection(kubeconfig({ server: "" }, {})), /no current cluster/);
    assert.throws(() => staticConnection(kubeconfig({ server: 6443 }, {})), /no current cluster/);
  });

  it("leaves to the Kubernetes client what it computes: an exec plugin, an auth provider, a proxy", () => {
    assert.equal(staticConnection(kubeconfig({}, { exec: { command: "oc" } })), undefined);
    assert.equal(staticConnection(kubeconfig({}, { "auth-provider": { name: "oidc" } })), undefined);
    assert.equal(staticConnection(kubeconfig({ "proxy-url": "http://proxy:3128" }, {})), undefined);
    assert.equal(staticConnection(kubeconfig({}, {}))!.server.href, `${SERVER}/`);
  });

  it("sends the inline token before a token file, and reads a token file in either spelling", () => {
    const tokenFile = file("token", "from-file\n");
    assert.deepEqual(options({}, { token: "inline", tokenFile }).headers, { Authorization: "Bearer inline" });
    assert.equal(staticConnection(kubeconfig({}, { token: "inline", tokenFile }))!.renewed("x"), false);
    assert.deepEqual(options({}, { tokenFile }).headers, { Authorization: "Bearer from-file" });
    const hyphenated = file("token-file", "hyphenated");
    assert.deepEqual(options({}, { "token-file": hyphenated }).headers, {
      Authorization: "Bearer hyphenated",
    });
    assert.deepEqual(options({}, { token: "", tokenFile: "", "token-file": hyphenated }).headers, {
      Authorization: "Bearer hyphenated",
    });
    assert.deepEqual(options({}, {}).headers, {}, "no credentials: no Authorization header");
  });

  /** client-go transport.NewCachedFileTokenSource: cachingTokenSource over fileTokenSource (period 1 min, leeway 10 s). */
  it("reads a token file again once its token is 50 s old, as client-go's cached file token source", () => {
    const tokenFile = file("rotating", "first");
    let now = 1_000_000;
    const connection = staticConnection(kubeconfig({}, { tokenFile }), () => now)!;
    assert.deepEqual(connection.options().headers, { Authorization: "Bearer first" });
    writeFileSync(tokenFile, "second\n");
    now += TOKEN_FILE_REREAD_MS - 1;
    assert.deepEqual(connection.options().headers, { Authorization: "Bearer first" }, "cached");
    now += 1;
    assert.deepEqual(connection.options().headers, { Authorization: "Bearer second" }, "read again");
    // A file that cannot be read keeps the last token in use (cachingTokenSource.Token).
    rmSync(tokenFile);
    now += TOKEN_FILE_REREAD_MS;
    assert.deepEqual(connection.options().headers, { Authorization: "Bearer second" });
    const never = staticConnection(kubeconfig({}, { tokenFile: join(dir, "missing") }))!;
    assert.throws(() => never.options(), /ENOENT/, "nothing read yet: the failure tells");
  });

  it("after a 401, reads the token file at once and says whether it holds another token to send", () => {
    const tokenFile = file("renewed", "old");
    let now = 0;
    const connection = staticConnection(kubeconfig({}, { tokenFile }), () => now)!;
    const sent = connection.options().headers.Authorization;
    assert.equal(connection.renewed(sent), false, "the same token: sending again would change nothing");
    writeFileSync(tokenFile, "new");
    now += 1;
    assert.equal(connection.renewed(sent), true);
    assert.deepEqual(connection.options().headers, { Authorization: "Bearer new" });
    now += 1;
    assert.equal(connection.renewed("Bearer new"), false, "read again at once, not cached");
    assert.equal(staticConnection(kubeconfig({}, { token: "inline" }))!.renewed("Bearer inline"), false);
  });

  it("impersonates the user `as` names, and sends basic auth with or without a password", () => {
    assert.deepEqual(options({}, { token: "t", as: "system:admin" }).headers, {
      Authorization: "Bearer t",
      "Impersonate-User": "system:admin",
    });
    assert.equal(options({}, { username: "admin", password: "secret" }).auth, "admin:secret");
    assert.equal(options({}, { username: "admin" }).auth, "admin:");
    assert.equal(options({}, { password: "secret" }).auth, undefined);
  });

  it("configures TLS from data or files, the file first, its verification and server name", () => {
    const caFile = file("ca.crt", "ca from file");
    const got = options(
      {
        "certificate-authority": caFile,
        "certificate-authority-data": base64("ca from data"),
        "insecure-skip-tls-verify": true,
        "tls-server-name": "api.internal",
      },
      { "client-certificate-data": base64("cert"), "client-key": file("client.key", "key") },
    );
    assert.deepEqual(
      { ...got, ca: got.ca?.toString(), cert: got.cert?.toString(), key: got.key?.toString() },
      {
        headers: {},
        ca: "ca from file",
        cert: "cert",
        key: "key",
        rejectUnauthorized: false,
        servername: "api.internal",
      },
    );
    const data = options(
      { "certificate-authority-data": base64("ca from data"), "insecure-skip-tls-verify": "true" },
      { "client-certificate": file("client.crt", "cert from file"), "client-key-data": base64("key") },
    );
    assert.equal(data.ca?.toString(), "ca from data");
    assert.equal(data.cert?.toString(), "cert from file");
    assert.equal(data.key?.toString(), "key");
    assert.equal(data.rejectUnauthorized, undefined, "only the boolean true turns verification off");
    assert.deepEqual(options({ "tls-server-name": "" }, {}), { headers: {} }, "nothing given, nothing set");
  });

  it("configures no TLS over plain HTTP, as for a `kubectl proxy` kubeconfig", () => {
    const proxied = kubeconfig(
      {
        server: "http://127.0.0.1:8001",
        "certificate-authority-data": base64("ca"),
        "insecure-skip-tls-verify": true,
      },
      { token: "t", "client-certificate-data": base64("cert") },
    );
    assert.deepEqual(staticConnection(proxied)!.options(), { headers: { Authorization: "Bearer t" } });
  });
});
